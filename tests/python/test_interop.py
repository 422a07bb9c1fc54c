#!/usr/bin/env python3
"""The validation service from a client nobody here wrote: Debian's python3-grpcio, with
stubs generated at test time from the contract. Creates a session, streams runs into it,
validates (progress events, the report, its chunks) and asks the standard health service.

Usage: test_interop.py --server PATH --protoc PATH --grpc-python-plugin PATH --proto-dir DIR
Exit status 77 (skipped) when python3-grpcio is not installed.
"""

import math
import random
import sys

import harness  # exits 77 (skipped) without python3-grpcio
import grpc

ARGS = None


def random_walk(rng, series_id, samples, channels):
    times, values, level, t = [], [], [0.0] * channels, 0.0
    for _ in range(samples):
        t += rng.uniform(0.005, 0.015)
        times.append(t)
        for c in range(channels):
            level[c] += rng.gauss(0.0, 1.0)
        values.extend(level)
    return series_id, [f"c{c}" for c in range(channels)], times, values


class InteropTest(harness.ServerTestCase):

    @classmethod
    def prepare(cls, scratch_dir):
        harness.generate_stubs(ARGS, scratch_dir)
        global pb, pb_grpc, health_pb, health_pb_grpc
        from wasserwarp.v1 import validation_pb2 as pb
        from wasserwarp.v1 import validation_pb2_grpc as pb_grpc
        import health_pb2 as health_pb
        import health_pb2_grpc as health_pb_grpc
    @classmethod
    def connected(cls):
        cls.stub = pb_grpc.ValidationServiceStub(cls.channel)

    def test_health_check_says_serving(self):
        health = health_pb_grpc.HealthStub(self.channel)
        response = health.Check(health_pb.HealthCheckRequest(service=""), timeout=5)
        self.assertEqual(response.status, health_pb.HealthCheckResponse.SERVING)

    def test_create_upload_validate(self):
        session = self.stub.CreateSession(pb.CreateSessionRequest(
            session_id="python-bench",
            session=pb.Session(default_parameters=pb.ValidationParameters(nu=0.5,
                                                                          deletion_penalty=0.2),
                               labels={"client": "python"})), timeout=10).session
        self.assertEqual(session.name, "sessions/python-bench")

        rng = random.Random(42)
        runs = [(pb.ROLE_SIMULATION, random_walk(rng, f"sim{k}", 400, 2)) for k in range(3)]
        runs += [(pb.ROLE_REFERENCE, random_walk(rng, f"ref{k}", 500, 2)) for k in range(4)]

        def upload():
            first = True
            for role, (series_id, channels, times, values) in runs:
                header = pb.SeriesHeader(role=role, series_id=series_id, channels=channels)
                yield pb.UploadSeriesRequest(session=session.name if first else "",
                                             header=header)
                first = False
                for start in range(0, len(times), 128):
                    yield pb.UploadSeriesRequest(chunk=pb.SeriesChunk(
                        times=times[start:start + 128],
                        values=values[start * len(channels):(start + 128) * len(channels)]))
                yield pb.UploadSeriesRequest(end=pb.SeriesEnd(expected_samples=len(times)))

        uploaded = self.stub.UploadSeries(upload(), timeout=30)
        self.assertEqual([run.series_id for run in uploaded.committed_runs],
                         ["sim0", "sim1", "sim2", "ref0", "ref1", "ref2", "ref3"])
        self.assertEqual(uploaded.committed_samples, 3 * 400 + 4 * 500)

        events = list(self.stub.Validate(pb.ValidateRequest(
            session=session.name, parameters=pb.ValidationParameters(order=2),
            include_cost_matrix=True), timeout=60))
        kinds = [event.WhichOneof("event") for event in events]
        self.assertGreaterEqual(kinds.count("progress"), 1)
        self.assertEqual(kinds.count("report"), 1)
        # Progress, the report, then the one chunk of its small cost matrix.
        self.assertEqual(kinds[-2:], ["report", "chunk"])
        for event in events[:-2]:
            self.assertLessEqual(event.progress.pairs_done, event.progress.pairs_total)
        report = events[-2].report
        self.assertTrue(math.isfinite(report.distance))
        self.assertGreater(report.distance, 0.0)
        self.assertEqual(report.order, 2.0)
        self.assertEqual(report.parameters.nu, 0.5)
        self.assertEqual(report.parameters.deletion_penalty, 0.2)
        self.assertEqual([run.id for run in report.simulation], ["sim0", "sim1", "sim2"])
        self.assertEqual(len(report.reference), 4)
        self.assertEqual(report.solver, pb.SOLVER_NETWORK_SIMPLEX)
        self.assertAlmostEqual(sum(entry.mass for entry in report.plan), 1.0, places=12)
        self.assertEqual((report.cost_matrix.rows, report.cost_matrix.cols), (3, 4))
        chunk = events[-1].chunk.cost_matrix
        self.assertEqual(chunk.offset, 0)
        self.assertEqual(len(chunk.values), 12)
        for entry in report.plan:
            self.assertEqual(chunk.values[entry.sim * 4 + entry.ref], entry.cost)
        self.assertEqual(len(report.certificate.u), 3)

        shown = self.stub.GetSession(pb.GetSessionRequest(name=session.name), timeout=10).session
        self.assertEqual(len(shown.runs), 7)
        self.assertEqual(shown.runs[0].samples, 400)
        self.stub.DeleteSession(pb.DeleteSessionRequest(name=session.name), timeout=10)

    def test_unknown_session_is_not_found(self):
        with self.assertRaises(grpc.RpcError) as raised:
            self.stub.GetSession(pb.GetSessionRequest(name="sessions/nobody-made-this"),
                                 timeout=10)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.NOT_FOUND)


if __name__ == "__main__":
    harness.run(__doc__.splitlines()[0], sys.modules[__name__])
