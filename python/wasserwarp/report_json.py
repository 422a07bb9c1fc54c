"""The validation report as JSON, exactly as the CLI's `validate --json` writes it, rendered from
the report's protobuf message rather than key by key.

Every field is written under its own name, in the proto's order, with the values the CLI
writes: numbers as numbers (64-bit integers too, which protobuf's JSON mapping makes strings),
enums by their short lower-case name, unset optional scalars and numbers JSON cannot hold (NaN,
infinity) as null, an unset message with its fields' defaults (as the CLI reads it). DEPARTURES
holds, message by message, each place where the CLI's JSON differs from that, so that a new
field the CLI writes under its proto name needs no edit here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

# Computes the value of a key from its message and the whole report (which holds, for
# instance, the channel names that pair metrics refer to by index).
Shape = Callable[[Message, Message], Any]


@dataclass(frozen=True)
class Departures:
    """Where the CLI's JSON of one message type differs from the message's fields. Field
    names are the proto's; keys are the JSON's, after `rename`."""

    rename: Mapping[str, str] = field(default_factory=dict)  # field -> key
    drop: Tuple[str, ...] = ()  # fields the CLI does not write
    null_if_unset: Tuple[str, ...] = ()  # message fields written as null when unset
    if_set: Tuple[str, ...] = ()  # fields written only when set (scalars: not their default)
    inline: Tuple[str, ...] = ()  # message fields whose keys the CLI writes in their parent's
    join: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)  # key -> fields as a list
    shape: Mapping[str, Shape] = field(default_factory=dict)  # key -> its value, computed
    add: Mapping[str, Shape] = field(default_factory=dict)  # keys that no field has
    after: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)  # key -> keys after it
    last: Tuple[str, ...] = ()  # keys written after all the others


def finite(value: float) -> Optional[float]:
    """The value, or None where JSON cannot hold it, as the CLI writes it."""
    return value if math.isfinite(value) else None


def rows(matrix: Message) -> List[List[Optional[float]]]:
    """A CostMatrix as a list of its rows."""
    values = np.array(matrix.values, dtype=np.float64).reshape(matrix.rows, matrix.cols)
    if np.isfinite(values).all():
        return values.tolist()
    return [[finite(value) for value in row] for row in values.tolist()]


# Enum values that the CLI does not write as their lower-case short name.
ENUM_SPELLINGS = {"SCALING_REFERENCE_STD": "reference-std"}


def enum_value_name(enum: EnumDescriptor, number: int) -> str:
    """An enum value as the CLI writes it: its name less the prefix of its type's name
    (ALIGNMENT_START of Alignment: "start"), or "unknown" for the unspecified value and for
    values newer than this client's stubs."""
    value = enum.values_by_number.get(number)
    if number == 0 or value is None:
        return "unknown"
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return ENUM_SPELLINGS.get(value.name, value.name.removeprefix(prefix).lower())


def enum_name(message: Message, name: str) -> str:
    """The value of the message's enum field `name`, as the CLI writes it."""
    return enum_value_name(message.DESCRIPTOR.fields_by_name[name].enum_type,
                           getattr(message, name))


def channel_averages(report: Message, _: Message) -> List[Dict[str, Any]]:
    """The plan-weighted metrics, one per channel, each led by its channel's name."""
    return [{"channel": channel, **message_json(metrics, report)}
            for channel, metrics in zip(report.parameters.channels, report.pair_metrics_average)]


def iso18571_averages(report: Message, _: Message) -> List[Dict[str, Any]]:
    """The plan-weighted ISO/TS 18571 ratings, one per channel, each led by its channel's name."""
    return [{"channel": channel, **message_json(average, report)}
            for channel, average in zip(report.parameters.channels, report.iso18571_average)]


def channels_with_units(params: Message, _: Message) -> List[Dict[str, Any]]:
    """Each channel with its unit (None where it has none) and its simulated runs' name."""
    units, simulated = list(params.channel_units), list(params.simulation_channels)
    return [{"name": name,
             "unit": units[c] if c < len(units) and units[c] else None,
             "simulation_channel": simulated[c] if c < len(simulated) else name}
            for c, name in enumerate(params.channels)]


DEPARTURES: Dict[str, Departures] = {
    "ValidationReport": Departures(
        rename={"parameters": "params", "quantities": "qoi"},
        # The page and a study's result are results of their own (ValidationResult's
        # html_report, sensitivity, identification), not part of `validate --json`.
        drop=("html_report", "html_report_bytes", "sensitivity", "identification"),
        null_if_unset=("verdict", "engine"),
        # The record's link only where the server gave one, as the CLI writes it.
        # The ISO/TS 18571 ratings only where the validation was asked for them.
        if_set=("cost_matrix", "pooled_cost_matrix", "link", "iso18571", "iso18571_average",
                "iso18571_warnings"),
        shape={"cost_matrix": lambda report, _: rows(report.cost_matrix),
               "pooled_cost_matrix": lambda report, _: rows(report.pooled_cost_matrix),
               "pair_metrics_average": channel_averages,
               "iso18571_average": iso18571_averages,
               # An object in key order; the digest null when the report has none.
               "labels": lambda report, _: dict(sorted(report.labels.items())),
               "request_digest": lambda report, _: report.request_digest or None},
        # The notes of the CLI's file readers: runs sent as arrays have none.
        add={"input_notes": lambda report, _: []},
        after={"dp_cells": ("dp_cells_full", "pairs_computed", "pairs_total", "int16_cells",
                            "single_cells"),
               "seconds": ("tiles",),
               "qoi": ("iso18571", "iso18571_average", "iso18571_warnings")},
        last=("input_notes", "labels", "engine", "request_digest", "link", "cost_matrix",
              "pooled_cost_matrix")),
    # Where the run came from, when the client said; its trigger, with an event window.
    "RunSummary": Departures(if_set=("source", "trigger_time")),
    "ReportParameters": Departures(
        rename={"deletion_penalty": "lambda"},
        # The runs the window left out are written in the window's object; units and simulated
        # names are written with each channel; the map is the request's.
        if_set=("window",),
        drop=("untriggered", "channel_units", "simulation_channels", "channel_map"),
        # Meaningful only when resample_rate is unset (see the proto).
        shape={"resampling": lambda params, _: (None if params.HasField("resample_rate")
                                                else enum_name(params, "resampling")),
               "channels": channels_with_units}),
    "EventWindow": Departures(
        add={"untriggered": lambda _, report: [message_json(run, report)
                                               for run in report.parameters.untriggered]}),
    "PairMetrics": Departures(
        inline=("metrics",),
        shape={"channel": lambda pair, report: report.parameters.channels[pair.channel]}),
    "PairBand": Departures(
        rename={"band": "channel"},
        shape={"channel": lambda pair, report: report.tolerance_bands[pair.band].channel}),

    "PairIso18571": Departures(
        shape={"channel": lambda pair, report: report.parameters.channels[pair.channel],
               "grade": lambda pair, _: pair.grade or None}),
    "Verdict": Departures(rename={"passed": "pass"}, null_if_unset=("baseline",),
                          after={"rules": ("p_value", "permutations", "baseline")},
                          last=("warnings",)),
    "VerdictRule": Departures(rename={"passed": "pass"}, after={"name": ("basis",)}),
    "Baseline": Departures(join={"ratio_interval": ("ratio_interval_lo", "ratio_interval_hi")},
                           last=("subset_size",)),
}
AS_IN_PROTO = Departures()


def value_json(descriptor: FieldDescriptor, value: Any, report: Message) -> Any:
    """One value of a field (an element, for a repeated one)."""
    if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
        return message_json(value, report)
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        return enum_value_name(descriptor.enum_type, value)
    if descriptor.cpp_type in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        return finite(value)
    return value


def field_json(message: Message, descriptor: FieldDescriptor, report: Message) -> Any:
    """A field's value: a list for a repeated field, None for an unset optional scalar."""
    value = getattr(message, descriptor.name)
    if descriptor.label == FieldDescriptor.LABEL_REPEATED:
        return [value_json(descriptor, element, report) for element in value]
    if (descriptor.has_presence and descriptor.type != FieldDescriptor.TYPE_MESSAGE
            and not message.HasField(descriptor.name)):
        return None
    return value_json(descriptor, value, report)


def ordered(result: Dict[str, Any], rules: Departures) -> Dict[str, Any]:
    """The keys in the CLI's order: the proto's, with the keys `after` and `last` name moved."""
    if not rules.after and not rules.last:
        return result
    moved = {key for keys in rules.after.values() for key in keys} | set(rules.last)
    keys = []
    for key in result:
        if key not in moved:
            keys.append(key)
            keys.extend(k for k in rules.after.get(key, ()) if k in result)
    keys.extend(key for key in rules.last if key in result)
    return {key: result[key] for key in keys}


def is_set(message: Message, descriptor: FieldDescriptor) -> bool:
    """Non-empty for a repeated field; HasField for a message field and an optional scalar; a
    proto3 scalar, which has no presence, when it is not its default."""
    if descriptor.label == FieldDescriptor.LABEL_REPEATED:
        return len(getattr(message, descriptor.name)) > 0
    if descriptor.message_type is not None or descriptor.has_presence:
        return message.HasField(descriptor.name)
    return getattr(message, descriptor.name) != descriptor.default_value


def message_json(message: Message, report: Message) -> Dict[str, Any]:
    """A message of the report (or the report itself) as the CLI writes it."""
    rules = DEPARTURES.get(message.DESCRIPTOR.name, AS_IN_PROTO)
    joined = {name: key for key, names in rules.join.items() for name in names}
    result: Dict[str, Any] = {}
    for descriptor in message.DESCRIPTOR.fields:
        name = descriptor.name
        key = joined.get(name) or rules.rename.get(name, name)
        if name in rules.drop or key in result:  # a joined key is written at its first field
            continue
        if name in rules.null_if_unset and not message.HasField(name):
            result[key] = None
        elif name in rules.if_set and not is_set(message, descriptor):
            continue
        elif name in rules.inline:
            result.update(message_json(getattr(message, name), report))
        elif name in joined:
            result[key] = [field_json(message, message.DESCRIPTOR.fields_by_name[part], report)
                           for part in rules.join[key]]
        elif key in rules.shape:
            result[key] = rules.shape[key](message, report)
        else:
            result[key] = field_json(message, descriptor, report)
    for key, value in rules.add.items():
        result[key] = value(message, report)
    return ordered(result, rules)


def report_json(report: Message) -> Dict[str, Any]:
    """The ValidationReport (its cost matrices' values included) as `validate --json`."""
    return message_json(report, report)
