"""The client of a wasserwarp-server: sessions, uploads, validations and single TWEDs."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Union)

import grpc

from .errors import WasserwarpError
from .parameters import (split_study_options, study_parameters, validate_request,
                         validation_parameters)
from .records import ValidationRecord, history
from .report import ReportAssembler, ValidationResult
from .runs import (DEFAULT_CHUNK_BYTES, Run, RunLike, RunSource, as_run, role_value,
                   upload_messages)
from .v1 import validation_pb2 as pb
from .v1 import validation_pb2_grpc as pb_grpc

PHASES = {pb.PHASE_QUEUED: "queued", pb.PHASE_PREPARING: "preparing",
          pb.PHASE_COST_MATRIX: "cost_matrix", pb.PHASE_TRANSPORT: "transport",
          pb.PHASE_DIAGNOSTICS: "diagnostics", pb.PHASE_POOLED_COST_MATRIX: "pooled_cost_matrix",
          pb.PHASE_RESAMPLING: "resampling"}
ROLE_NAMES = {pb.ROLE_SIMULATION: "simulation", pb.ROLE_REFERENCE: "reference"}
# A server from before tombstones sends no state: its sessions are all live.
SESSION_STATES = {pb.Session.STATE_ACTIVE: "active", pb.Session.STATE_EXPIRED: "expired",
                  pb.Session.STATE_DELETED: "deleted"}
VALIDATION_STATES = {"queued": pb.VALIDATION_STATE_QUEUED,
                     "running": pb.VALIDATION_STATE_RUNNING,
                     "succeeded": pb.VALIDATION_STATE_SUCCEEDED,
                     "failed": pb.VALIDATION_STATE_FAILED,
                     "cancelled": pb.VALIDATION_STATE_CANCELLED}


@dataclass(frozen=True)
class RunInfo:
    """A run as a session holds it; a simulated run with the parameters and trial it was
    uploaded with (Run), a reference run with none."""

    run_id: str
    role: str  # "simulation" or "reference"
    samples: int
    channels: Tuple[str, ...]
    weight: Optional[float]
    parameters: Dict[str, float]
    trial: str
    # The file it was read from and its SHA-256, when the uploader said.
    source: Optional[RunSource] = None
    # Each channel's unit, parallel to channels ("" for none); empty when the run has none.
    units: Tuple[str, ...] = ()

    @classmethod
    def from_proto(cls, run: pb.RunInfo) -> "RunInfo":
        source = RunSource(run.source.file, run.source.sha256) if run.HasField("source") else None
        return cls(run.series_id, ROLE_NAMES.get(run.role, "unknown"), run.samples,
                   tuple(run.channels), run.weight if run.HasField("weight") else None,
                   dict(sorted(run.parameters.items())),  # in name order, not the map's
                   run.trial, source, tuple(run.units))


@dataclass(frozen=True)
class Session:
    """A session: its id, default parameters (the message as sent), labels, lifetime and runs.
    `runs` is filled by get_session only; list_sessions gives the counts."""

    session_id: str
    default_parameters: pb.ValidationParameters
    labels: Dict[str, str]
    idle_ttl: datetime.timedelta
    create_time: datetime.datetime
    expire_time: datetime.datetime
    runs: Tuple[RunInfo, ...]
    simulation_run_count: int
    reference_run_count: int
    bytes_held: int
    # "active"; a tombstone, which keeps its validation records readable: "expired" or
    # "deleted", since delete_time.
    state: str = "active"
    delete_time: Optional[datetime.datetime] = None

    @property
    def name(self) -> str:
        """The resource name, `sessions/{session_id}`."""
        return f"sessions/{self.session_id}"

    @classmethod
    def from_proto(cls, session: pb.Session) -> "Session":
        runs = tuple(RunInfo.from_proto(run) for run in session.runs)
        deleted = session.HasField("delete_time")
        return cls(session.name.removeprefix("sessions/"), session.default_parameters,
                   dict(session.labels), session.idle_ttl.ToTimedelta(),
                   session.create_time.ToDatetime(datetime.timezone.utc),
                   session.expire_time.ToDatetime(datetime.timezone.utc), runs,
                   session.simulation_run_count, session.reference_run_count,
                   session.bytes_held, SESSION_STATES.get(session.state, "active"),
                   session.delete_time.ToDatetime(datetime.timezone.utc) if deleted else None)


@dataclass(frozen=True)
class Progress:
    """A progress event of a running validation."""

    phase: str
    pairs_done: int
    pairs_total: int
    cells_done: int
    cells_total: int
    elapsed: datetime.timedelta
    resamples_done: int
    resamples_total: int
    # A validation the server computes in tiles: the tiles every replica has stored (the
    # cells then count every replica's too, and the pairs are 0).
    tiles_done: int
    tiles_total: int


@dataclass(frozen=True)
class TwedResult:
    """The TWED between two runs and its edit path's diagnostics."""

    twed: float
    matches: int
    a_deletions: int
    b_deletions: int
    mean_time_shift: float


SessionRef = Union[Session, str]


def host_of_target(target: str) -> str:
    """The host of a gRPC target ("host:port", "[v6]:port", "dns:///host:port", "ipv4:...")."""
    for scheme in ("dns:", "ipv4:", "ipv6:"):
        if target.startswith(scheme):
            target = target[len(scheme):]
            if scheme == "dns:" and target.startswith("//"):
                target = target[2:].partition("/")[2]
            break
    if target.startswith("["):
        return target[1:].partition("]")[0]
    if target.count(":") == 1:
        return target.partition(":")[0]
    return target


def is_loopback_target(target: str) -> bool:
    """Whether `target` names this machine only, by the server's rule (wire/loopback_address.h):
    localhost, 127.0.0.0/8, ::1, unix sockets; names are not resolved."""
    if target.startswith(("unix:", "unix-abstract:")):
        return True
    host = host_of_target(target)
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def session_name(session: SessionRef) -> str:
    """The resource name of a session given as a Session or by its id."""
    return session.name if isinstance(session, Session) else f"sessions/{session}"


class Client:
    """A connection to a wasserwarp-server at `target` ("host:port").

    TLS when root_certificates (PEM bytes) is given, or with `tls=True` trusting the system's
    root certificates (as gRPC finds them: GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, else its own
    bundle); mutual TLS with certificate_chain and private_key as well. `token` is sent as
    `authorization: Bearer` with every call; over plaintext only to a loopback host unless
    `insecure=True` (behind a TLS-terminating proxy, on a trusted network), else the
    constructor raises WasserwarpError FAILED_PRECONDITION before connecting. Each
    call ends with DEADLINE_EXCEEDED after `timeout` seconds (None: no deadline). Every
    failed call raises WasserwarpError with the gRPC status code and message.
    Use it as a context manager, or call close().
    """

    def __init__(self, target: str, token: Optional[str] = None,
                 root_certificates: Optional[bytes] = None,
                 certificate_chain: Optional[bytes] = None,
                 private_key: Optional[bytes] = None,
                 timeout: Optional[float] = 600.0, tls: bool = False,
                 insecure: bool = False) -> None:
        if (certificate_chain is None) != (private_key is None):
            raise ValueError("certificate_chain and private_key go together: both or neither")
        secure = tls or root_certificates is not None or certificate_chain is not None
        if token and not secure and not insecure and not is_loopback_target(target):
            raise WasserwarpError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"refusing to send the access token in plaintext to {host_of_target(target)}, "
                "which is not a loopback address: use TLS (tls=True or root_certificates=...), "
                "or insecure=True if a TLS-terminating proxy or a trusted network protects the "
                "connection")
        if secure:
            credentials = grpc.ssl_channel_credentials(root_certificates, private_key,
                                                       certificate_chain)
            self._channel = grpc.secure_channel(target, credentials)
        else:
            self._channel = grpc.insecure_channel(target)
        self._stub = pb_grpc.ValidationServiceStub(self._channel)
        # UploadSeries with the messages encoded by runs.upload_messages (no serializer).
        self._upload = self._channel.stream_unary(
            "/wasserwarp.v1.ValidationService/UploadSeries",
            response_deserializer=pb.UploadSeriesResponse.FromString)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self.timeout = timeout

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def _call(self, method: Callable[..., Any], request: Any) -> Any:
        try:
            return method(request, timeout=self.timeout, metadata=self._metadata)
        except grpc.RpcError as error:
            raise WasserwarpError.from_rpc_error(error) from None

    # --- sessions ---

    def create_session(self, session_id: Optional[str] = None, *,
                       labels: Optional[Dict[str, str]] = None,
                       idle_ttl: Optional[datetime.timedelta] = None,
                       **defaults: Any) -> Session:
        """Creates a session; the service picks an id when none is given. `defaults` are the
        session's validation parameters (nu, deletion_penalty, p, time_window, order, align,
        scale, channels, resample_rate, resampling)."""
        session = pb.Session(default_parameters=validation_parameters(defaults),
                             labels=labels or {})
        if idle_ttl is not None:
            session.idle_ttl.FromTimedelta(idle_ttl)
        request = pb.CreateSessionRequest(session_id=session_id or "", session=session)
        return Session.from_proto(self._call(self._stub.CreateSession, request).session)

    def get_session(self, session: SessionRef) -> Session:
        """The session with the runs it holds."""
        request = pb.GetSessionRequest(name=session_name(session))
        return Session.from_proto(self._call(self._stub.GetSession, request).session)

    def list_sessions(self, page_size: int = 1000, show_deleted: bool = False) -> List[Session]:
        """Every session this caller may see, in the order of their ids; with show_deleted,
        the tombstones of expired and deleted sessions too (their `state` says which)."""
        sessions: List[Session] = []
        token = ""
        while True:
            response = self._call(self._stub.ListSessions,
                                  pb.ListSessionsRequest(page_size=page_size, page_token=token,
                                                         show_deleted=show_deleted))
            sessions.extend(Session.from_proto(s) for s in response.sessions)
            token = response.next_page_token
            if not token:
                return sessions

    def delete_session(self, session: SessionRef) -> None:
        """Deletes the session's runs; one with validation records stays as a tombstone that
        keeps them readable, and deleting the tombstone purges them."""
        self._call(self._stub.DeleteSession, pb.DeleteSessionRequest(name=session_name(session)))

    # --- runs ---

    def upload(self, session: SessionRef, role: str, runs: Iterable[Union[Run, RunLike]],
               weights: Optional[Sequence[float]] = None,
               chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> List[RunInfo]:
        """Sends runs into the session as `role` ("simulation" or "reference") in one stream,
        chunked to at most `chunk_bytes` of samples per message. A run is (run_id, times,
        values, channels) with values samples x channels, or (run_id, DataFrame) with a
        "time" column or index, or a Run, which can also carry a simulated run's parameters
        and trial. Returns the runs committed. Each run commits on its own: when one is
        refused, those before it stay."""
        # Every run checked before anything is sent, as the CLI's upload does.
        prepared = [as_run(run) for run in runs]
        if weights is not None and len(weights) != len(prepared):
            raise ValueError(f"{len(weights)} weights for {len(prepared)} runs")
        messages = upload_messages(session_name(session), role_value(role), prepared,
                                   chunk_bytes, weights)
        response = self._call(self._upload, messages)
        return [RunInfo.from_proto(run) for run in response.committed_runs]

    # --- validation ---

    def validate(self, session: SessionRef, progress: Optional[Callable[[Progress], None]] = None,
                 labels: Optional[Mapping[str, str]] = None,
                 **overrides: Any) -> ValidationResult:
        """Validates what the session holds. `overrides` replace the session's defaults for
        this call (the names of create_session); a verdict is computed when any of
        permutations, seed, max_distance, max_ratio, alpha, subtract_sampling_floor,
        ratio_rule ("interval"/"median"), ratio_confidence, band_min_inside or min_iso_rating is
        given; also quantities (["channel:quantity", ...]), bands
        (["channel:abs=A,rel=R,lead=S,lag=S", ...], scored on every pair of the plan:
        ValidationResult.bands), include_cost_matrix, include_pooled_cost_matrix,
        include_html_report, exhaustive (compute every pair: the same distance, see
        ValidationResult.pairs_computed) and iso18571 (ValidationResult.iso18571). `progress` is
        called with each Progress event.
        `labels` label the validation record the server keeps, to find it later
        (list_validations(filter=...), history())."""
        request = validate_request(session_name(session), overrides)
        request.labels.update(labels or {})
        try:
            return assemble(self._stub.Validate(request, timeout=self.timeout,
                                                metadata=self._metadata), progress)
        except grpc.RpcError as error:
            raise WasserwarpError.from_rpc_error(error) from None

    # --- validation records ---

    def create_validation(self, session: SessionRef,
                          labels: Optional[Mapping[str, str]] = None,
                          **overrides: Any) -> ValidationRecord:
        """Queues a validation of what the session holds now (validate()'s options) and
        returns its record at once, QUEUED; its name finds it later."""
        request = validate_request(session_name(session), overrides)
        request.labels.update(labels or {})
        response = self._call(self._stub.CreateValidation,
                              pb.CreateValidationRequest(request=request))
        return ValidationRecord.from_proto(response.validation)

    def get_validation(self, name: str) -> ValidationRecord:
        """The record `sessions/{session}/validations/{id}` names."""
        response = self._call(self._stub.GetValidation, pb.GetValidationRequest(name=name))
        return ValidationRecord.from_proto(response.validation)

    def list_validations(self, session: Optional[SessionRef] = None,
                         filter: Optional[str] = None,  # noqa: A002  (the API's name)
                         order_by: Optional[str] = None, all_sessions: bool = False,
                         state: Optional[str] = None,
                         page_size: int = 1000) -> Iterator[ValidationRecord]:
        """The validation records of `session`, or with all_sessions of every session of
        the caller (tombstones included), newest first unless order_by is "create_time",
        fetched a page at a time as the generator is read. `filter` is the server's AIP-160
        subset: `labels.model = "vdyn" AND outcome.passed = true AND create_time >=
        "2026-03-01T00:00:00Z"`; `state` one of queued, running, succeeded, failed,
        cancelled."""
        if (session is None) == (not all_sessions):
            raise ValueError("give a session or all_sessions=True, not both or neither")
        if state is not None and state not in VALIDATION_STATES:
            raise ValueError(f"state must be one of {', '.join(VALIDATION_STATES)}, "
                             f"got {state!r}")
        request = pb.ListValidationsRequest(
            parent="sessions/-" if all_sessions else session_name(session),
            page_size=page_size, filter=filter or "", order_by=order_by or "",
            state=VALIDATION_STATES.get(state or "", pb.VALIDATION_STATE_UNSPECIFIED))
        # A generator of its own, so that a bad argument raises here, not at the first read.
        return self._validation_pages(request)

    def _validation_pages(self, request: pb.ListValidationsRequest
                          ) -> Iterator[ValidationRecord]:
        while True:
            response = self._call(self._stub.ListValidations, request)
            for validation in response.validations:
                yield ValidationRecord.from_proto(validation)
            if not response.next_page_token:
                return
            request.page_token = response.next_page_token

    def history(self, filter: str, by: str,  # noqa: A002  (the API's name)
                session: Optional[SessionRef] = None) -> List[Dict[str, Any]]:
        """The records matching `filter` (of `session`, else of every session) that have the
        label `by` ("labels.version" or "version") and an outcome, in the order of its
        values, versions as versions (4.10.0 after 4.9.2): the list of dicts of `wasserwarp
        validations history --json`."""
        records = self.list_validations(session, filter=filter, all_sessions=session is None)
        return history(records, by)

    def delete_validation(self, name: str) -> None:
        """Deletes an ended validation's record; FAILED_PRECONDITION while it is queued or
        running (cancel it first)."""
        self._call(self._stub.DeleteValidation, pb.DeleteValidationRequest(name=name))

    def sensitivity(self, session: SessionRef, nominal: Mapping[str, float],
                    progress: Optional[Callable[[Progress], None]] = None,
                    **options: Any) -> ValidationResult:
        """A sensitivity study of the session's simulated runs, grouped into design points by
        the parameters they were uploaded with, around `nominal` (a design point). `options`:
        pair_cost, resamples, confidence, splits, seed, and validate()'s overrides. The
        result's `sensitivity` holds the study, with the keys of `wasserwarp sensitivity
        --json`; the rest is the validation of every simulated run."""
        return self._study(session, "sensitivity", progress, {"nominal": nominal, **options})

    def identify(self, session: SessionRef, progress: Optional[Callable[[Progress], None]] = None,
                 **options: Any) -> ValidationResult:
        """An identification over the session's design points. `options`: nominal,
        reference_groups ({reference run id: group}), response ("squared"/"distance"),
        max_ratio, resamples, confidence, splits, seed, and validate()'s overrides. The
        result's `identification` holds the study."""
        return self._study(session, "identify", progress, options)

    def _study(self, session: SessionRef, analysis: str,
               progress: Optional[Callable[[Progress], None]],
               options: Mapping[str, Any]) -> ValidationResult:
        study, overrides = split_study_options(analysis, options)
        request = validate_request(session_name(session), overrides)
        request.study.CopyFrom(study_parameters(analysis, study))
        try:
            return assemble(self._stub.Validate(request, timeout=self.timeout,
                                                metadata=self._metadata), progress)
        except grpc.RpcError as error:
            raise WasserwarpError.from_rpc_error(error) from None

    def compute_twed(self, a: Union[Run, RunLike], b: Union[Run, RunLike],
                     **params: Any) -> TwedResult:
        """The TWED between two runs sent inline (the forms upload() takes); `params` are nu,
        deletion_penalty, p, time_window, align, channels and resample_rate."""
        request = pb.ComputeTwedRequest(a=inline(as_run(a)), b=inline(as_run(b)),
                                        parameters=validation_parameters(params))
        r = self._call(self._stub.ComputeTwed, request)
        return TwedResult(r.twed, r.matches, r.a_deletions, r.b_deletions, r.mean_time_shift)


def inline(run: Run) -> pb.InlineSeries:
    """A run as ComputeTwed carries it."""
    return pb.InlineSeries(series_id=run.run_id, channels=run.channels,
                           times=run.times.tolist(), values=run.values.ravel().tolist(),
                           units=run.units)


def assemble(events: Iterator[pb.ValidateResponse],
             progress: Optional[Callable[[Progress], None]]) -> ValidationResult:
    """The result of a Validate stream: progress events handed on, then the report and the
    chunks that complete it."""
    assembler: Optional[ReportAssembler] = None
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "progress" and progress is not None:
            p = event.progress
            progress(Progress(PHASES.get(p.phase, "unknown"), p.pairs_done, p.pairs_total,
                              p.cells_done, p.cells_total, p.elapsed.ToTimedelta(),
                              p.resamples_done, p.resamples_total, p.tiles_done,
                              p.tiles_total))
        elif kind == "report":
            assembler = ReportAssembler(event.report)
        elif kind == "chunk":
            if assembler is None:
                raise ValueError("a report chunk before the report")
            assembler.add(event.chunk)
    if assembler is None:
        raise ValueError("the Validate stream ended without a report")
    return assembler.result()
