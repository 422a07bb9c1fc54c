"""Keyword arguments of the client, as the service's parameter messages.

Names and values follow the CLI where the wire differs: `align` "none"/"start", `scale`
"none"/"reference-std", `resampling` "auto"/"none", `ratio_rule` "interval"/"median";
`deletion_penalty` is TWED's lambda (the CLI's --lambda).
"""

from __future__ import annotations

from typing import Any, Mapping

from .v1 import validation_pb2 as pb

ALIGNMENTS = {"none": pb.ALIGNMENT_NONE, "start": pb.ALIGNMENT_START}
SCALINGS = {"none": pb.SCALING_NONE, "reference-std": pb.SCALING_REFERENCE_STD}
RESAMPLINGS = {"auto": pb.RESAMPLING_AUTO, "none": pb.RESAMPLING_NONE}
RATIO_RULES = {"interval": pb.RATIO_RULE_INTERVAL, "median": pb.RATIO_RULE_MEDIAN}
RESPONSES = {"squared": pb.SURFACE_RESPONSE_SQUARED_DISTANCE,
             "distance": pb.SURFACE_RESPONSE_DISTANCE}

# ValidationParameters: plain scalar fields, enums by name, and the channel list.
NUMBER_PARAMETERS = ("nu", "deletion_penalty", "p", "time_window", "order", "resample_rate")
ENUM_PARAMETERS = {"align": ALIGNMENTS, "scale": SCALINGS, "resampling": RESAMPLINGS}
# VerdictParameters: asking for any of them asks for a verdict.
VERDICT_PARAMETERS = ("permutations", "seed", "max_distance", "max_ratio", "alpha",
                      "subtract_sampling_floor", "ratio_confidence", "ratio_rule",
                      "band_min_inside", "min_iso_rating")
# StudyParameters shared by both analyses, and each analysis's own.
STUDY_PARAMETERS = ("resamples", "confidence", "splits", "seed")
SENSITIVITY_PARAMETERS = ("nominal", "pair_cost")
IDENTIFY_PARAMETERS = ("nominal", "reference_groups", "response", "max_ratio")
# ValidateRequest's own fields.
REQUEST_OPTIONS = ("include_cost_matrix", "include_pooled_cost_matrix", "include_html_report",
                   "exhaustive", "quantities", "bands", "iso18571")


def enum_value(field: str, names: Mapping[str, int], value: str) -> int:
    """The wire value of an enum given by name; ValueError naming the field otherwise."""
    try:
        return names[value]
    except KeyError:
        raise ValueError(f"{field} must be one of {', '.join(names)}, got {value!r}") from None


def channel_mappings(value: Any) -> list:
    """ChannelMapping messages from {"sim": "ref"} or (sim, ref[, unit]) tuples; the service
    checks them (the CLI's --map rules)."""
    entries = value.items() if isinstance(value, Mapping) else value
    return [pb.ChannelMapping(simulation_channel=entry[0], reference_channel=entry[1],
                              unit=entry[2] if len(entry) > 2 else "")
            for entry in entries]


def validation_parameters(options: Mapping[str, Any]) -> pb.ValidationParameters:
    """ValidationParameters from nu, deletion_penalty, p, time_window, order, resample_rate,
    align, scale, resampling, channels, channel_map, strict_units and window; TypeError for any
    other name."""
    message = pb.ValidationParameters()
    for name, value in options.items():
        if name in NUMBER_PARAMETERS:
            setattr(message, name, float(value))
        elif name in ENUM_PARAMETERS:
            setattr(message, name, enum_value(name, ENUM_PARAMETERS[name], value))
        elif name == "channels":
            message.channels.extend(value)
        elif name == "window":
            message.window.CopyFrom(event_window(value))
        elif name == "channel_map":
            message.channel_map.extend(channel_mappings(value))
        elif name == "strict_units":
            message.strict_units = bool(value)
        else:
            raise TypeError(f"unknown validation parameter {name!r}")
    return message


WINDOW_FIELDS = ("condition", "before", "after", "hysteresis", "skip_untriggered")


def event_window(options: Mapping[str, Any]) -> pb.EventWindow:
    """An EventWindow from {"condition": "CHANNEL>LEVEL" (or "<"), "before": s, "after": s,
    "hysteresis": h, "skip_untriggered": bool}; TypeError for any other key. The server checks
    the values."""
    unknown = [key for key in options if key not in WINDOW_FIELDS]
    if unknown:
        raise TypeError(f"unknown window field {unknown[0]!r}; known: {', '.join(WINDOW_FIELDS)}")
    message = pb.EventWindow()
    for key, value in options.items():
        if key == "condition":
            message.condition = str(value)
        elif key == "skip_untriggered":
            message.skip_untriggered = bool(value)
        else:
            setattr(message, key, float(value))
    return message


def validate_request(session_name: str, options: Mapping[str, Any]) -> pb.ValidateRequest:
    """A ValidateRequest from validate()'s keyword arguments: parameters overriding the
    session's defaults, verdict options, quantities ("channel:quantity"), tolerance bands
    ("channel:abs=A,rel=R,lead=S,lag=S") and include_*."""
    parameters = {}
    verdict = {}
    request = pb.ValidateRequest(session=session_name)
    for name, value in options.items():
        if name in VERDICT_PARAMETERS:
            verdict[name] = value
        elif name == "quantities":
            request.quantities.extend(value)
        elif name == "bands":
            request.bands.extend(value)
        elif name in REQUEST_OPTIONS:
            setattr(request, name, bool(value))
        else:
            parameters[name] = value
    request.parameters.CopyFrom(validation_parameters(parameters))
    if verdict:
        request.verdict.CopyFrom(verdict_parameters(verdict))
    return request


def verdict_parameters(options: Mapping[str, Any]) -> pb.VerdictParameters:
    """VerdictParameters from the names in VERDICT_PARAMETERS."""
    message = pb.VerdictParameters()
    for name, value in options.items():
        if name == "ratio_rule":
            message.ratio_rule = enum_value(name, RATIO_RULES, value)
        elif name in ("permutations", "seed"):
            setattr(message, name, int(value))
        elif name == "subtract_sampling_floor":
            message.subtract_sampling_floor = bool(value)
        else:
            setattr(message, name, float(value))
    return message


def split_study_options(analysis: str, options: Mapping[str, Any]) -> tuple:
    """The keyword arguments of sensitivity() or identify() as (study options, the rest)."""
    own = SENSITIVITY_PARAMETERS if analysis == "sensitivity" else IDENTIFY_PARAMETERS
    study = {k: v for k, v in options.items() if k in STUDY_PARAMETERS or k in own}
    rest = {k: v for k, v in options.items() if k not in study}
    return study, rest


def study_parameters(analysis: str, options: Mapping[str, Any]) -> pb.StudyParameters:
    """StudyParameters for `analysis` ("sensitivity" or "identify") from resamples,
    confidence, splits, seed and the analysis's own names: nominal ({name: value}) and
    pair_cost; or nominal, reference_groups ({reference run id: group}), response
    ("squared"/"distance") and max_ratio."""
    message = pb.StudyParameters()
    target = message.sensitivity if analysis == "sensitivity" else message.identify
    target.SetInParent()
    for name, value in options.items():
        if name in ("resamples", "splits", "seed"):
            setattr(message, name, int(value))
        elif name == "confidence":
            message.confidence = float(value)
        elif name == "nominal":
            for key, number in value.items():
                target.nominal[str(key)] = float(number)
        elif name == "reference_groups":
            for run_id, group in value.items():
                target.reference_groups[str(run_id)] = str(group)
        elif name == "response":
            target.response = enum_value(name, RESPONSES, value)
        elif name in ("pair_cost", "max_ratio"):
            setattr(target, name, float(value))
        else:
            raise TypeError(f"unknown {analysis} parameter {name!r}")
    return message
