#!/usr/bin/env python3
"""A report too large for one gRPC message reaches a Python client with default channel
options: 370 + 370 short runs, both cost matrices asked for (5.5 MB), sent as the report and
then chunks of at most 1 MiB, which the test puts back together.

Usage: test_large_report.py --server PATH --protoc PATH --grpc-python-plugin PATH --proto-dir DIR
Exit status 77 (skipped) when python3-grpcio is not installed.
"""

import random
import sys

import harness  # exits 77 (skipped) without python3-grpcio
import grpc

ARGS = None
RUNS_PER_SET = 370
SAMPLES = 5
DEFAULT_MAX_RECEIVE_BYTES = 4 << 20


def assemble(report, events):
    """The report's matrices and page from the chunks that follow it, checked as the contract
    says: each part's pieces in order and contiguous, together the announced size."""
    matrices = {"cost_matrix": [], "pooled_cost_matrix": []}
    page = []
    for event in events:
        chunk = event.chunk
        part = chunk.WhichOneof("part")
        if part == "html_report":
            page.append(chunk.html_report)
            continue
        values = matrices[part]
        piece = getattr(chunk, part)
        if piece.offset != len(values):
            raise AssertionError(f"{part} chunk at offset {piece.offset}, expected {len(values)}")
        values.extend(piece.values)
    for part, values in matrices.items():
        announced = getattr(report, part)
        if len(values) != announced.rows * announced.cols:
            raise AssertionError(f"{part}: {len(values)} values for "
                                 f"{announced.rows} x {announced.cols}")
    html = "".join(page)
    if len(html.encode("utf-8")) != report.html_report_bytes:
        raise AssertionError("the HTML report does not have the announced size")
    return matrices, html


class LargeReportTest(harness.ServerTestCase):

    @classmethod
    def prepare(cls, scratch_dir):
        harness.generate_stubs(ARGS, scratch_dir)
        global pb, pb_grpc
        from wasserwarp.v1 import validation_pb2 as pb
        from wasserwarp.v1 import validation_pb2_grpc as pb_grpc
    @classmethod
    def connected(cls):
        cls.stub = pb_grpc.ValidationServiceStub(cls.channel)

    def upload(self, session):
        rng = random.Random(7)
        for role, prefix in ((pb.ROLE_SIMULATION, "sim"), (pb.ROLE_REFERENCE, "ref")):
            for k in range(RUNS_PER_SET):
                yield pb.UploadSeriesRequest(session=session, header=pb.SeriesHeader(
                    role=role, series_id=f"{prefix}{k}", channels=["c0"]))
                yield pb.UploadSeriesRequest(chunk=pb.SeriesChunk(
                    times=[0.01 * i for i in range(SAMPLES)],
                    values=[rng.gauss(0.0, 1.0) for _ in range(SAMPLES)]))
                yield pb.UploadSeriesRequest(end=pb.SeriesEnd(expected_samples=SAMPLES))

    def test_matrices_over_4_mib_arrive_in_chunks(self):
        session = self.stub.CreateSession(pb.CreateSessionRequest(session_id="large"),
                                          timeout=10).session
        uploaded = self.stub.UploadSeries(self.upload(session.name), timeout=60)
        self.assertEqual(len(uploaded.committed_runs), 2 * RUNS_PER_SET)

        events = list(self.stub.Validate(pb.ValidateRequest(
            session=session.name, include_cost_matrix=True, include_pooled_cost_matrix=True,
            verdict=pb.VerdictParameters(permutations=1)), timeout=120))
        kinds = [event.WhichOneof("event") for event in events]
        self.assertEqual(kinds.count("report"), 1)
        first_chunk = kinds.index("report") + 1
        self.assertEqual(set(kinds[:first_chunk - 1]), {"progress"})
        self.assertEqual(set(kinds[first_chunk:]), {"chunk"})
        self.assertLess(max(event.ByteSize() for event in events), DEFAULT_MAX_RECEIVE_BYTES)

        report = events[first_chunk - 1].report
        self.assertEqual((report.cost_matrix.rows, report.cost_matrix.cols),
                         (RUNS_PER_SET, RUNS_PER_SET))
        self.assertEqual(len(report.cost_matrix.values), 0)
        matrices, html = assemble(report, events[first_chunk:])
        self.assertEqual(html, "")
        costs, pooled = matrices["cost_matrix"], matrices["pooled_cost_matrix"]
        self.assertGreater(8 * (len(costs) + len(pooled)), DEFAULT_MAX_RECEIVE_BYTES)
        # The plan's pairs and the pooled matrix's sim x ref block agree with the cost matrix.
        pooled_size = 2 * RUNS_PER_SET
        for entry in report.plan:
            cost = costs[entry.sim * RUNS_PER_SET + entry.ref]
            self.assertEqual(entry.cost, cost)
            self.assertAlmostEqual(pooled[entry.sim * pooled_size + RUNS_PER_SET + entry.ref],
                                   cost, places=9)
        self.stub.DeleteSession(pb.DeleteSessionRequest(name=session.name), timeout=10)


if __name__ == "__main__":
    harness.run(__doc__.splitlines()[0], sys.modules[__name__])
