"""Runs as the client takes them (numpy arrays or pandas DataFrames) and as they travel in an
UploadSeries stream: a header, chunks of samples under the message limit, an end mark."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .v1 import validation_pb2 as pb

# 1 MiB of samples per chunk, as the C++ client sends: far below the 4 MiB any gRPC peer
# accepts, and large enough that the cost per message does not matter.
DEFAULT_CHUNK_BYTES = 1 << 20
ROLES = {"simulation": pb.ROLE_SIMULATION, "reference": pb.ROLE_REFERENCE}

# (run_id, times, values, channels) or (run_id, DataFrame).
RunLike = Union[Tuple[str, Any, Any, Sequence[str]], Tuple[str, Any]]


@dataclass(frozen=True)
class RunSource:
    """Where a run came from: the file it was read from and the SHA-256 of that file's bytes
    (64 lowercase hexadecimal digits). The server keeps it with the run and with every
    validation of it, so that a record says which files it judged."""

    file: str
    sha256: str

    @classmethod
    def of_file(cls, path: Union[str, "os.PathLike[str]"]) -> "RunSource":
        """The source of a run read from `path`: its name as given, and its bytes' hash."""
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        return cls(os.fspath(path), digest.hexdigest())


@dataclass(frozen=True)
class Run:
    """One run ready to send: times (n,), values (n, channels) sample-major, channel names.

    A simulated run may say what it was simulated with, for a parameter study: `parameters`,
    the model parameter values by name (runs with the same ones form a design point), and
    `trial`, the name of the random inputs that drove it (runs of different points with the
    same trial are dependent trials, common random numbers). The server checks them, and
    refuses them on reference runs."""

    run_id: str
    times: np.ndarray
    values: np.ndarray
    channels: Tuple[str, ...]
    parameters: Dict[str, float] = field(default_factory=dict)
    trial: str = ""
    # The file it was read from (with_source), sent with it; None: not from a file.
    source: Optional[RunSource] = None
    # Each channel's physical unit ("rad/s", "deg/s"; "" for none), parallel to `channels`;
    # empty: the run has none. The server checks them and converts channels between runs as
    # the CLI does with the units of CSV headers `name[unit]` and MDF 4 files.
    units: Tuple[str, ...] = ()

    @classmethod
    def of(cls, run_id: str, times: Any, values: Any, channels: Sequence[str],
           parameters: Optional[Mapping[str, float]] = None, trial: str = "",
           units: Optional[Sequence[str]] = None) -> "Run":
        """A run from array-likes; a 1-D values array is one channel. `units`: none, or one
        per channel ("" for a channel without one). ValueError when the shapes or the number
        of units do not fit together."""
        times = np.ascontiguousarray(times, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if values.ndim == 1:
            values = values.reshape(-1, 1)
        values = np.ascontiguousarray(values)
        channels = tuple(str(channel) for channel in channels)
        if times.ndim != 1 or values.ndim != 2:
            raise ValueError(f"run {run_id!r}: times must be 1-D and values samples x channels")
        if values.shape != (times.size, len(channels)):
            raise ValueError(f"run {run_id!r}: values are {values.shape[0]} x {values.shape[1]}, "
                             f"expected {times.size} samples x {len(channels)} channels")
        units = tuple(str(unit) for unit in (units or ()))
        if units and len(units) != len(channels):
            raise ValueError(f"run {run_id!r}: {len(units)} units for {len(channels)} channels "
                             "(expected none or one per channel)")
        return cls(str(run_id), times, values, channels,
                   {str(name): float(value) for name, value in (parameters or {}).items()},
                   str(trial), units=units)

    def with_source(self, path: Union[str, "os.PathLike[str]"]) -> "Run":
        """This run, said to be read from the file at `path`: its upload sends the file's
        name and SHA-256 (RunSource.of_file)."""
        return dataclasses.replace(self, source=RunSource.of_file(path))

    @classmethod
    def from_frame(cls, run_id: str, frame: Any, time_column: str = "time",
                   parameters: Optional[Mapping[str, float]] = None, trial: str = "") -> "Run":
        """A run from a pandas DataFrame: times from `time_column` when it has one, else from
        the index; every other column is a channel, a column named `name[unit]` (as a CSV
        header, e.g. "yaw_rate[deg/s]") the channel `name` in `unit`. Times may be seconds,
        timedeltas, or datetimes (with or without a time zone), which count from the first
        sample."""
        if time_column in frame.columns:
            times = seconds(frame[time_column])
            frame = frame.drop(columns=[time_column])
        else:
            times = seconds(frame.index)
        named = [name_and_unit(str(column)) for column in frame.columns]
        units = [unit for _, unit in named]
        return cls.of(run_id, times, frame.to_numpy(dtype=np.float64),
                      [name for name, _ in named], parameters, trial,
                      units if any(units) else None)


def name_and_unit(column: str) -> Tuple[str, str]:
    """A column named `name[unit]` as (name, unit), any other as (column, "")."""
    if column.endswith("]") and "[" in column:
        name, _, unit = column[:-1].rpartition("[")
        return name.rstrip(), unit
    return column, ""


def seconds(times: Any) -> np.ndarray:
    """Times in seconds from numbers, timedeltas or datetimes (numpy or pandas). Datetimes
    count from the first one: seconds since 1970 as float64 keep only microseconds, and
    alignment needs no absolute times. A time zone is converted to UTC first, so that a
    change of daylight saving time in a run does not bend it."""
    if hasattr(times, "dt"):  # a pandas Series of datetimes
        if getattr(times.dt, "tz", None) is not None:
            times = times.dt.tz_convert("UTC").dt.tz_localize(None)
    elif getattr(times, "tz", None) is not None:  # a DatetimeIndex
        times = times.tz_convert("UTC").tz_localize(None)
    array = np.asarray(times)
    if np.issubdtype(array.dtype, np.datetime64):
        if array.size == 0:
            return np.zeros(0)
        return (array - array[0]) / np.timedelta64(1, "s")
    if np.issubdtype(array.dtype, np.timedelta64):
        return array / np.timedelta64(1, "s")
    return np.asarray(array, dtype=np.float64)


def as_run(run: Union[Run, RunLike]) -> Run:
    """A Run from any of the forms upload() accepts."""
    if isinstance(run, Run):
        return run
    if len(run) == 2:
        return Run.from_frame(*run)
    if len(run) == 4:
        return Run.of(*run)
    raise ValueError("a run is (run_id, times, values, channels) or (run_id, DataFrame)")


def role_value(role: str) -> int:
    """The wire value of "simulation" or "reference"."""
    try:
        return ROLES[role]
    except KeyError:
        raise ValueError(f"role must be 'simulation' or 'reference', got {role!r}") from None


def varint(value: int) -> bytes:
    """A non-negative integer in protobuf's base-128 varint encoding."""
    out = bytearray()
    while value > 0x7F:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(field: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2): tag, length, payload."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def chunk_message(times: np.ndarray, values: np.ndarray) -> bytes:
    """The encoded UploadSeriesRequest{chunk: SeriesChunk{times, values}}.

    A SeriesChunk is two packed repeated doubles, whose encoding is their little-endian bytes
    behind a tag and a length; numpy writes those bytes directly, about ten times faster than
    filling the repeated fields through the protobuf runtime, which made the upload
    Python-bound. The bytes are exactly what SerializeToString gives (the tests check it).
    """
    chunk = (length_delimited(1, times.astype("<f8", copy=False).tobytes())
             + length_delimited(2, values.astype("<f8", copy=False).tobytes()))
    return length_delimited(3, chunk)


def upload_messages(session_name: str, wire_role: int, runs: Sequence[Run],
                    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                    weights: Optional[Sequence[float]] = None) -> Iterator[bytes]:
    """The encoded stream of one upload: for each run a header (with its parameters and
    trial), chunks of at most `chunk_bytes` of times and values (at least one sample each), and
    an end mark with the sample count."""
    for index, run in enumerate(runs):
        header = pb.SeriesHeader(role=wire_role, series_id=run.run_id, channels=run.channels,
                                 parameters=run.parameters, trial=run.trial, units=run.units)
        if weights is not None:
            header.weight = float(weights[index])
        if run.source is not None:
            header.source.file = run.source.file
            header.source.sha256 = run.source.sha256
        yield pb.UploadSeriesRequest(session=session_name if index == 0 else "",
                                     header=header).SerializeToString()
        samples = run.times.size
        per_chunk = max(1, chunk_bytes // (8 * (1 + len(run.channels))))
        for start in range(0, samples, per_chunk):
            stop = min(samples, start + per_chunk)
            yield chunk_message(run.times[start:stop], run.values[start:stop].ravel())
        end = pb.UploadSeriesRequest(end=pb.SeriesEnd(expected_samples=samples))
        yield end.SerializeToString()
