#!/usr/bin/env python3
"""The validation service from a client nobody here wrote: Debian's python3-grpcio, with
stubs generated at test time from the contract. Creates a session, streams runs into it,
validates (progress events, then the report) and asks the standard health service.

Usage: test_interop.py --server PATH --protoc PATH --grpc-python-plugin PATH --proto-dir DIR
Exit status 77 (skipped) when python3-grpcio is not installed.
"""

import argparse
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

SKIPPED = 77

try:
    import grpc
except ImportError:
    print("python_interop_test: skipped: python3-grpcio is not installed "
          "(apt-get install python3-grpcio, or 'make deps')")
    sys.exit(SKIPPED)

ARGS = None


def generate_stubs(out_dir):
    """Python modules for the contract and the health protocol, in out_dir."""
    # The health protocol from its own directory: as grpc/health/v1/, its module would land
    # inside grpcio's package "grpc", where Python would not look for it.
    health_dir = os.path.join(ARGS.proto_dir, "grpc", "health", "v1")
    for include, proto in ((ARGS.proto_dir, "wasserwarp/v1/validation.proto"),
                           (health_dir, "health.proto")):
        subprocess.run([ARGS.protoc, f"--python_out={out_dir}", f"--grpc_out={out_dir}",
                        f"--plugin=protoc-gen-grpc={ARGS.grpc_python_plugin}",
                        "-I", include, proto], check=True)
    sys.path.insert(0, out_dir)


def random_walk(rng, series_id, samples, channels):
    times, values, level, t = [], [], [0.0] * channels, 0.0
    for _ in range(samples):
        t += rng.uniform(0.005, 0.015)
        times.append(t)
        for c in range(channels):
            level[c] += rng.gauss(0.0, 1.0)
        values.extend(level)
    return series_id, [f"c{c}" for c in range(channels)], times, values


class Server:
    """A wasserwarp-server on a free loopback port."""

    def __init__(self, log_path):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen([ARGS.server, "--listen", "127.0.0.1:0", "--data_dir="],
                                        stdout=subprocess.PIPE, stderr=self.log,
                                        stdin=subprocess.DEVNULL)
        first = []
        reader = threading.Thread(target=lambda: first.append(self.process.stdout.readline()))
        reader.start()
        reader.join(timeout=30)
        line = first[0].decode().strip() if first else ""
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError(f"server did not say where it listens: {line!r}")
        self.address = line[len("listening on "):]
        # Whatever else the server prints must not fill the pipe and block it.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return None
        finally:
            self.log.close()


class InteropTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="python_interop_")
        generate_stubs(cls.tmp.name)
        global pb, pb_grpc, health_pb, health_pb_grpc
        from wasserwarp.v1 import validation_pb2 as pb
        from wasserwarp.v1 import validation_pb2_grpc as pb_grpc
        import health_pb2 as health_pb
        import health_pb2_grpc as health_pb_grpc
        cls.server = Server(os.path.join(cls.tmp.name, "server.log"))
        cls.channel = grpc.insecure_channel(cls.server.address)
        grpc.channel_ready_future(cls.channel).result(timeout=10)
        cls.stub = pb_grpc.ValidationServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        status = cls.server.stop()
        with open(cls.server.log_path, encoding="utf-8", errors="replace") as log:
            server_log = log.read()
        cls.tmp.cleanup()
        if status != 0:
            raise AssertionError(f"server exit status {status} after SIGTERM; log:\n{server_log}")

    def test_health_check_says_serving(self):
        health = health_pb_grpc.HealthStub(self.channel)
        response = health.Check(health_pb.HealthCheckRequest(service=""), timeout=5)
        self.assertEqual(response.status, health_pb.HealthCheckResponse.SERVING)

    def test_create_upload_validate(self):
        session = self.stub.CreateSession(pb.CreateSessionRequest(
            session_id="python-bench",
            # "lambda" is a Python keyword, hence the dict.
            session=pb.Session(default_parameters=pb.ValidationParameters(nu=0.5,
                                                                          **{"lambda": 0.2}),
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
        self.assertEqual(kinds[-1], "report")
        self.assertEqual(kinds.count("report"), 1)
        for event in events[:-1]:
            self.assertLessEqual(event.progress.pairs_done, event.progress.pairs_total)
        report = events[-1].report
        self.assertTrue(math.isfinite(report.distance))
        self.assertGreater(report.distance, 0.0)
        self.assertEqual(report.order, 2.0)
        self.assertEqual(report.parameters.nu, 0.5)
        self.assertEqual(getattr(report.parameters, "lambda"), 0.2)
        self.assertEqual([run.id for run in report.simulation], ["sim0", "sim1", "sim2"])
        self.assertEqual(len(report.reference), 4)
        self.assertEqual(report.solver, pb.SOLVER_NETWORK_SIMPLEX)
        self.assertAlmostEqual(sum(entry.mass for entry in report.plan), 1.0, places=12)
        self.assertEqual((report.cost_matrix.rows, report.cost_matrix.cols), (3, 4))
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


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--protoc", required=True)
    parser.add_argument("--grpc-python-plugin", required=True)
    parser.add_argument("--proto-dir", required=True)
    ARGS, rest = parser.parse_known_args()
    if not os.access(ARGS.grpc_python_plugin, os.X_OK):
        sys.exit(f"python_interop_test: no grpc_python_plugin at {ARGS.grpc_python_plugin!r} "
                 "(apt-get install protobuf-compiler-grpc)")
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
