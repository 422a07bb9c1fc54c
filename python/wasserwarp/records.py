"""Validations as the records a server keeps (issue 38): labelled, with their outcome in a few
numbers, found by filter across sessions, and a model's history over one label's values. The
dictionaries are those of the CLI's `validations list --json` and `validations history
--json`."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .v1 import validation_pb2 as pb
from .version_order import compare_versions, version_key

STATES = {pb.VALIDATION_STATE_QUEUED: "queued", pb.VALIDATION_STATE_RUNNING: "running",
          pb.VALIDATION_STATE_SUCCEEDED: "succeeded", pb.VALIDATION_STATE_FAILED: "failed",
          pb.VALIDATION_STATE_CANCELLED: "cancelled"}
EVENT_KINDS = {pb.ValidationEvent.KIND_CREATE: "create", pb.ValidationEvent.KIND_START: "start",
               pb.ValidationEvent.KIND_END: "end", pb.ValidationEvent.KIND_CANCEL: "cancel",
               pb.ValidationEvent.KIND_SESSION_DELETE: "session_delete",
               pb.ValidationEvent.KIND_SESSION_EXPIRE: "session_expire"}


def _time(timestamp: Any) -> Optional[datetime.datetime]:
    """A set Timestamp as an aware datetime in UTC; None when unset."""
    if timestamp.seconds == 0 and timestamp.nanos == 0:
        return None
    return timestamp.ToDatetime(datetime.timezone.utc)


def _rfc3339(time: Optional[datetime.datetime]) -> Optional[str]:
    """As the CLI prints times: UTC to the second."""
    return None if time is None else time.strftime("%Y-%m-%dT%H:%M:%SZ")


def _optional(message: Any, name: str) -> Optional[Any]:
    return getattr(message, name) if message.HasField(name) else None


@dataclass(frozen=True)
class Outcome:
    """A succeeded validation's result in a few numbers; `passed` is None without a decision
    rule, the ratio and its interval None without a baseline."""

    distance: float
    passed: Optional[bool]
    p_value: Optional[float]
    ratio: Optional[float]
    ratio_interval: Optional[Tuple[float, float]]

    @classmethod
    def from_proto(cls, outcome: pb.ValidationOutcome) -> "Outcome":
        interval = None
        if outcome.HasField("ratio_interval_lo") and outcome.HasField("ratio_interval_hi"):
            interval = (outcome.ratio_interval_lo, outcome.ratio_interval_hi)
        return cls(outcome.distance, _optional(outcome, "passed"),
                   _optional(outcome, "p_value"), _optional(outcome, "ratio"), interval)

    def to_dict(self) -> Dict[str, Any]:
        return {"distance": self.distance, "passed": self.passed, "p_value": self.p_value,
                "ratio": self.ratio,
                "ratio_interval": None if self.ratio_interval is None
                else list(self.ratio_interval)}


@dataclass(frozen=True)
class Engine:
    """The build that ran a validation."""

    version: str
    commit: str
    build_type: str
    simd_target: str


@dataclass(frozen=True)
class Event:
    """Something that happened to a validation, and who did it ("" for the service)."""

    kind: str
    time: Optional[datetime.datetime]
    principal: str
    replica: str


@dataclass(frozen=True)
class ValidationRecord:
    """A validation as the server keeps it, without its report (validate() returns that).
    `max_distance` and `max_ratio` are the decision rules its request gave."""

    name: str
    state: str
    labels: Dict[str, str]
    outcome: Optional[Outcome]
    principal: str
    create_time: Optional[datetime.datetime]
    start_time: Optional[datetime.datetime]
    end_time: Optional[datetime.datetime]
    attempts: int
    error: Optional[Tuple[int, str]]  # (google.rpc.Code, message) when FAILED or CANCELLED
    engine: Optional[Engine]
    request_digest: str
    events: Tuple[Event, ...]
    max_distance: Optional[float] = None
    max_ratio: Optional[float] = None

    @property
    def validation_id(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @classmethod
    def from_proto(cls, v: pb.Validation) -> "ValidationRecord":
        engine = None
        if v.HasField("engine"):
            engine = Engine(v.engine.version, v.engine.commit, v.engine.build_type,
                            v.engine.simd_target)
        events = tuple(Event(EVENT_KINDS.get(e.kind, "unspecified"), _time(e.time),
                             e.principal, e.replica) for e in v.events)
        verdict = v.request.verdict
        return cls(v.name, STATES.get(v.state, "unspecified"), dict(sorted(v.labels.items())),
                   Outcome.from_proto(v.outcome) if v.HasField("outcome") else None,
                   v.principal, _time(v.create_time), _time(v.start_time), _time(v.end_time),
                   v.attempts, (v.error.code, v.error.message) if v.HasField("error") else None,
                   engine, v.request_digest, events, _optional(verdict, "max_distance"),
                   _optional(verdict, "max_ratio"))

    def to_dict(self) -> Dict[str, Any]:
        """The object of `wasserwarp validations list --json` (its error code as a number)."""
        return {
            "name": self.name, "id": self.validation_id, "state": self.state,
            "labels": dict(self.labels),
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
            "create_time": _rfc3339(self.create_time), "start_time": _rfc3339(self.start_time),
            "end_time": _rfc3339(self.end_time), "attempts": self.attempts,
            "principal": self.principal,
            "error": None if self.error is None
            else {"code": self.error[0], "message": self.error[1]},
            "engine": None if self.engine is None else vars(self.engine).copy(),
            "request_digest": self.request_digest,
            "events": [{"kind": e.kind, "time": _rfc3339(e.time), "principal": e.principal,
                        "replica": e.replica} for e in self.events],
        }


def label_key(by: str) -> str:
    """The label key of `by`, given as labels.KEY (as in a filter) or KEY."""
    key = by[len("labels."):] if by.startswith("labels.") else by
    if not key:
        raise ValueError(f"expected labels.KEY, e.g. labels.version, got {by!r}")
    return key


def history(records: Iterable[ValidationRecord], by: str) -> List[Dict[str, Any]]:
    """The records that have the label `by` and an outcome, in the order of its values
    (compare_versions), equal values by creation time, then name: a list of {name, by,
    labels, distance, ratio, ratio_interval, p_value, passed, create_time}, the array of
    `wasserwarp validations history --json`."""
    key = label_key(by)
    kept = [r for r in records
            if key in r.labels and r.state == "succeeded" and r.outcome is not None]
    epoch = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    kept.sort(key=lambda r: (version_key(r.labels[key]), r.create_time or epoch, r.name))
    return [{"name": r.name, "by": r.labels[key], "labels": dict(r.labels),
             "distance": r.outcome.distance, "ratio": r.outcome.ratio,
             "ratio_interval": None if r.outcome.ratio_interval is None
             else list(r.outcome.ratio_interval),
             "p_value": r.outcome.p_value, "passed": r.outcome.passed,
             "create_time": _rfc3339(r.create_time)} for r in kept]


__all__ = ["Engine", "Event", "Outcome", "ValidationRecord", "compare_versions", "history",
           "label_key"]
