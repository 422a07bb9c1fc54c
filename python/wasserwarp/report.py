"""The result of a validation, typed: what the service's report holds, with vectors and
matrices as numpy arrays, and to_dict() giving exactly the CLI's `validate --json` report (which
report_json renders from the report's message)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from google.protobuf import json_format

from .report_json import enum_name, report_json
from .v1 import validation_pb2 as pb


def optional(message: Any, name: str) -> Optional[float]:
    """An optional proto field's value, None when unset."""
    return getattr(message, name) if message.HasField(name) else None


def array(values: Any) -> np.ndarray:
    """A repeated double field as a float64 array."""
    return np.array(values, dtype=np.float64)


@dataclass(frozen=True)
class Parameters:
    """The resolved parameters the report was computed with."""

    nu: float
    deletion_penalty: float
    p: float
    time_window: Optional[float]
    align: str
    scale: str
    channels: Tuple[str, ...]
    resample_rate: Optional[float]
    resampling: Optional[str]  # None when resample_rate is set

    @classmethod
    def from_proto(cls, params: pb.ReportParameters) -> "Parameters":
        rate = optional(params, "resample_rate")
        return cls(params.nu, params.deletion_penalty, params.p, optional(params, "time_window"),
                   enum_name(params, "align"), enum_name(params, "scale"),
                   tuple(params.channels), rate,
                   None if rate is not None else enum_name(params, "resampling"))


@dataclass(frozen=True)
class RunSummary:
    """A run of the report: its id, sample count and normalised weight, and with an event
    window its trigger in its own time axis."""

    id: str
    samples: int
    weight: float
    trigger_time: Optional[float] = None


@dataclass(frozen=True)
class TileShare:
    """How many of the validation's cost-matrix tiles one server replica computed."""

    replica: str
    tiles: int
    dp_cells: int


@dataclass(frozen=True)
class PlanEntry:
    """A non-zero entry of the transport plan: indices into simulation and reference."""

    sim: int
    ref: int
    mass: float
    cost: float  # the pair's TWED


@dataclass(frozen=True)
class PairDiagnostics:
    """The edit path of one plan entry's pair."""

    sim: int
    ref: int
    twed: float
    matches: int
    sim_deletions: int
    ref_deletions: int
    mean_time_shift: float


@dataclass(frozen=True)
class Certificate:
    """The optimality certificate: duals u (simulation) and v (reference)."""

    max_dual_violation: float
    primal_dual_gap: float
    primal: float
    dual: float
    u: np.ndarray
    v: np.ndarray


@dataclass(frozen=True)
class ChannelMetrics:
    """Rigid metrics of one channel; None where a metric is undefined for the data."""

    samples: int
    rmse: Optional[float]
    theil_u: Optional[float]
    q3: Optional[float]
    sprague_geers_m: Optional[float]
    sprague_geers_p: Optional[float]
    sprague_geers_c: Optional[float]
    lag: Optional[float]

    @classmethod
    def from_proto(cls, metrics: pb.ChannelMetrics) -> "ChannelMetrics":
        return cls(metrics.samples, *(optional(metrics, f.name) for f in fields(cls)[1:]))


@dataclass(frozen=True)
class PairMetrics:
    """The metrics of one channel of one plan entry's pair."""

    sim: int
    ref: int
    channel: str
    metrics: ChannelMetrics


@dataclass(frozen=True)
class Iso18571Rating:
    """The ISO/TS 18571 rating of one channel of one plan entry's pair: r = 0.4 z + 0.2 ep +
    0.2 em + 0.2 es; scores, shift and grade None for a pair under 10 grid samples."""

    sim: int
    ref: int
    channel: str
    samples: int
    r: Optional[float]
    z: Optional[float]
    ep: Optional[float]
    em: Optional[float]
    es: Optional[float]
    shift_samples: Optional[int]  # positive when the simulated run is late
    shift_seconds: Optional[float]
    grade: Optional[str]  # "excellent", "good", "fair" or "poor"

    @classmethod
    def from_proto(cls, pair: pb.PairIso18571, channels: Tuple[str, ...]) -> "Iso18571Rating":
        return cls(pair.sim, pair.ref, channels[pair.channel], pair.samples,
                   *(optional(pair, f.name) for f in fields(cls)[4:-1]), pair.grade or None)


@dataclass(frozen=True)
class Iso18571Average:
    """One channel's plan-weighted mean ISO/TS 18571 scores and its lowest r; None where no
    pair of the channel was rated."""

    r: Optional[float]
    z: Optional[float]
    ep: Optional[float]
    em: Optional[float]
    es: Optional[float]
    min_r: Optional[float]

    @classmethod
    def from_proto(cls, average: pb.Iso18571Average) -> "Iso18571Average":
        return cls(*(optional(average, f.name) for f in fields(cls)))


@dataclass(frozen=True)
class Quantity:
    """The area validation metric of one quantity of interest."""

    channel: str
    quantity: str
    avm: float
    sim_values: np.ndarray
    ref_values: np.ndarray


@dataclass(frozen=True)
class PairBand:
    """One tolerance band on one plan entry's pair: the share of the reference's samples where
    the simulated run is inside, the largest distance outside (channel units) and the time of
    the first sample outside; inside and max_excursion None where the runs share no time."""

    sim: int
    ref: int
    channel: str
    samples: int
    inside: Optional[float]
    max_excursion: Optional[float]
    first_violation: Optional[float]


@dataclass(frozen=True)
class Rule:
    """A decision rule of the verdict and whether it held."""

    name: str
    basis: str
    value: float
    threshold: float
    passed: bool


@dataclass(frozen=True)
class Baseline:
    """W between same-size groups over random splits, and the ratio with its interval."""

    subset_size: int
    ref_ref_median: float
    ref_ref_p05: float
    ref_ref_p95: float
    sim_ref_median: float
    sim_ref_p05: float
    sim_ref_p95: float
    ratio: float
    ratio_interval: Tuple[float, float]
    ratio_confidence: float

    @classmethod
    def from_proto(cls, b: pb.Baseline) -> "Baseline":
        return cls(b.subset_size, b.ref_ref_median, b.ref_ref_p05, b.ref_ref_p95,
                   b.sim_ref_median, b.sim_ref_p05, b.sim_ref_p95, b.ratio,
                   (b.ratio_interval_lo, b.ratio_interval_hi), b.ratio_confidence)


@dataclass(frozen=True)
class Verdict:
    """The permutation test, the reference baseline and the decision rules."""

    passed: Optional[bool]  # None when no decision rule was given
    rules: Tuple[Rule, ...]
    p_value: float
    permutations: int
    baseline: Optional[Baseline]  # None with fewer than 2 reference runs
    statistic: float
    seed: int
    sampling_floor_subtracted: bool
    resample_rate: Optional[float]
    same_grid_as_distance: bool
    warnings: Tuple[str, ...]

    @classmethod
    def from_proto(cls, v: pb.Verdict) -> "Verdict":
        rules = tuple(Rule(r.name, r.basis, r.value, r.threshold, r.passed) for r in v.rules)
        return cls(optional(v, "passed"), rules, v.p_value, v.permutations,
                   Baseline.from_proto(v.baseline) if v.HasField("baseline") else None,
                   v.statistic, v.seed, v.sampling_floor_subtracted,
                   optional(v, "resample_rate"), v.same_grid_as_distance, tuple(v.warnings))


def matrix(report: pb.ValidationReport, name: str) -> Optional[np.ndarray]:
    """A cost matrix of the report as a rows x cols array, None when not asked for."""
    if not report.HasField(name):
        return None
    part = getattr(report, name)
    return array(part.values).reshape(part.rows, part.cols)


def study_dict(report: pb.ValidationReport, name: str) -> Optional[Dict[str, Any]]:
    """A study's part of the report as plain values, every field present. protobuf's own JSON
    mapping rather than report_json's: the CLI's `sensitivity --json` and `identify --json` are
    shaped otherwise (parameters by name, the surface as named coefficients)."""
    if not report.HasField(name):
        return None
    return json_format.MessageToDict(getattr(report, name), preserving_proto_field_name=True,
                                     including_default_value_fields=True)


@dataclass(frozen=True)
class ValidationResult:
    """What validate() returns: W_q between the simulated and the reference runs, the plan
    that attains it, the contributions of each run, diagnostics, metrics and the verdict."""

    distance: float
    order: float
    solver: str  # "assignment", "network_simplex" or "monotone"
    params: Parameters
    simulation: Tuple[RunSummary, ...]
    reference: Tuple[RunSummary, ...]
    plan: Tuple[PlanEntry, ...]
    sim_contributions: np.ndarray
    ref_contributions: np.ndarray
    pairs: Tuple[PairDiagnostics, ...]
    certificate: Certificate
    weight_rounding_bound: float
    dp_cells: int
    seconds: float
    tiles: Tuple[TileShare, ...]  # by replica, when the server computed the matrices in tiles
    verdict: Optional[Verdict]
    pair_metrics: Tuple[PairMetrics, ...]
    pair_metrics_average: Tuple[ChannelMetrics, ...]  # one per params.channels entry
    quantities: Tuple[Quantity, ...]
    cost_matrix: Optional[np.ndarray]  # sim x ref TWEDs, when asked for
    pooled_cost_matrix: Optional[np.ndarray]  # (n+m) x (n+m), when asked for with a verdict
    html_report: Optional[str]  # when asked for
    # The report as it came, its cost matrices' values put back from the chunks: what
    # to_dict() renders (left out of repr(), which would print every value).
    report: pb.ValidationReport = field(repr=False)
    # A study's result (Client.sensitivity, Client.identify), with the keys of the CLI's
    # `sensitivity --json` and `identify --json` where the wire has them.
    sensitivity: Optional[Dict[str, Any]] = None
    identification: Optional[Dict[str, Any]] = None
    # DP cells of the full sim x ref matrix, and how many of its pairs had their TWED computed:
    # fewer than pairs_total when the lazy transport proved the others cannot matter.
    dp_cells_full: int = 0
    pairs_computed: int = 0
    pairs_total: int = 0
    # Cells of the DP on 16-bit integers and in single precision that bounded the pairs not
    # computed (each about a quarter and half a DP cell's time), not in dp_cells.
    int16_cells: int = 0
    single_cells: int = 0
    # Every tolerance band on every plan entry (plan order, then band order).
    bands: Tuple[PairBand, ...] = ()
    # With iso18571=True or a min_iso_rating: every plan pair and channel, the plan-weighted
    # averages (one per params.channels entry) and the notes on pairs too short to rate.
    iso18571: Tuple[Iso18571Rating, ...] = ()
    iso18571_average: Tuple[Iso18571Average, ...] = ()
    iso18571_warnings: Tuple[str, ...] = ()
    # How the sim x ref transport was solved: "lazy" or "exhaustive" (empty in older reports),
    # and its transport solves.
    path: str = ""
    transport_solves: int = 0

    @property
    def plan_matrix(self) -> np.ndarray:
        """The transport plan as a dense simulation x reference matrix of masses."""
        matrix = np.zeros((len(self.simulation), len(self.reference)))
        for entry in self.plan:
            matrix[entry.sim, entry.ref] = entry.mass
        return matrix

    @classmethod
    def from_proto(cls, report: pb.ValidationReport, html: Optional[str]) -> "ValidationResult":
        """The result from the report with its cost matrices' values and the page its chunks
        carried (assembled by ReportAssembler)."""
        params = Parameters.from_proto(report.parameters)
        c = report.certificate
        return cls(
            distance=report.distance, order=report.order,
            solver=enum_name(report, "solver"), params=params,
            simulation=tuple(RunSummary(r.id, r.samples, r.weight, optional(r, "trigger_time"))
                             for r in report.simulation),
            reference=tuple(RunSummary(r.id, r.samples, r.weight, optional(r, "trigger_time"))
                            for r in report.reference),
            plan=tuple(PlanEntry(e.sim, e.ref, e.mass, e.cost) for e in report.plan),
            sim_contributions=array(report.sim_contributions),
            ref_contributions=array(report.ref_contributions),
            pairs=tuple(PairDiagnostics(d.sim, d.ref, d.twed, d.matches, d.sim_deletions,
                                        d.ref_deletions, d.mean_time_shift)
                        for d in report.pairs),
            certificate=Certificate(c.max_dual_violation, c.primal_dual_gap, c.primal, c.dual,
                                    array(c.u), array(c.v)),
            weight_rounding_bound=report.weight_rounding_bound, dp_cells=report.dp_cells,
            dp_cells_full=report.dp_cells_full, pairs_computed=report.pairs_computed,
            pairs_total=report.pairs_total, int16_cells=report.int16_cells,
            single_cells=report.single_cells,
            path=report.path, transport_solves=report.transport_solves,
            seconds=report.seconds,
            tiles=tuple(TileShare(t.replica, t.tiles, t.dp_cells) for t in report.tiles),
            verdict=Verdict.from_proto(report.verdict) if report.HasField("verdict") else None,
            pair_metrics=tuple(PairMetrics(m.sim, m.ref, params.channels[m.channel],
                                           ChannelMetrics.from_proto(m.metrics))
                               for m in report.pair_metrics),
            pair_metrics_average=tuple(ChannelMetrics.from_proto(m)
                                       for m in report.pair_metrics_average),
            quantities=tuple(Quantity(q.channel, q.quantity, q.avm, array(q.sim_values),
                                      array(q.ref_values)) for q in report.quantities),
            cost_matrix=matrix(report, "cost_matrix"),
            pooled_cost_matrix=matrix(report, "pooled_cost_matrix"), html_report=html,
            report=report,
            sensitivity=study_dict(report, "sensitivity"),
            identification=study_dict(report, "identification"),
            bands=tuple(PairBand(b.sim, b.ref, report.tolerance_bands[b.band].channel, b.samples,
                                 optional(b, "inside"), optional(b, "max_excursion"),
                                 optional(b, "first_violation"))
                        for b in report.bands),
            iso18571=tuple(Iso18571Rating.from_proto(p, params.channels)
                           for p in report.iso18571),
            iso18571_average=tuple(Iso18571Average.from_proto(a)
                                   for a in report.iso18571_average),
            iso18571_warnings=tuple(report.iso18571_warnings))

    def to_dict(self) -> Dict[str, Any]:
        """The report with the keys and values of the CLI's `validate --json`."""
        return report_json(self.report)


class ReportAssembler:
    """Puts a Validate stream's report back together from the chunks that follow it, checking
    what the contract promises: each part's pieces in order, together the announced size. The
    cost matrices' values go back into the report, so that it is whole again."""

    def __init__(self, report: pb.ValidationReport) -> None:
        self.report = report
        self.matrices = [name for name in ("cost_matrix", "pooled_cost_matrix")
                         if report.HasField(name)]
        self.page: List[str] = []

    def add(self, chunk: pb.ReportChunk) -> None:
        """One ReportChunk event; ValueError when it does not continue its part."""
        part = chunk.WhichOneof("part")
        if part == "html_report":
            self.page.append(chunk.html_report)
            return
        if part not in self.matrices:
            raise ValueError(f"report chunk of an unannounced part {part!r}")
        piece, values = getattr(chunk, part), getattr(self.report, part).values
        if piece.offset != len(values):
            raise ValueError(f"{part} chunk at offset {piece.offset}, expected {len(values)}")
        values.extend(piece.values)

    def result(self) -> ValidationResult:
        """The typed result; ValueError when a part is incomplete."""
        for name in self.matrices:
            part = getattr(self.report, name)
            if len(part.values) != part.rows * part.cols:
                raise ValueError(f"{name}: {len(part.values)} values for "
                                 f"{part.rows} x {part.cols}")
        html = None
        if self.report.html_report_bytes > 0:
            html = "".join(self.page)
            if len(html.encode("utf-8")) != self.report.html_report_bytes:
                raise ValueError("the HTML report does not have the announced size")
        return ValidationResult.from_proto(self.report, html)
