"""What the Python tests of the service share: their command line, the stubs generated at test
time from the contract, and a real wasserwarp-server on a loopback port.

Importing it exits with status 77 (skipped) when python3-grpcio is not installed.
"""

import argparse
import os
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
    print(f"{os.path.basename(sys.argv[0])}: skipped: python3-grpcio is not installed "
          "(apt-get install python3-grpcio, or 'make deps')")
    sys.exit(SKIPPED)



def parse_args(description):
    """The options every test takes, and the rest for unittest."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--server", required=True)
    parser.add_argument("--protoc", required=True)
    parser.add_argument("--grpc-python-plugin", required=True)
    parser.add_argument("--proto-dir", required=True)
    args, rest = parser.parse_known_args()
    if not os.access(args.grpc_python_plugin, os.X_OK):
        sys.exit(f"{os.path.basename(sys.argv[0])}: no grpc_python_plugin at "
                 f"{args.grpc_python_plugin!r} (apt-get install protobuf-compiler-grpc)")
    return args, [sys.argv[0]] + rest


def generate_stubs(args, out_dir):
    """Python modules for the contract and the health protocol, in out_dir."""
    # The health protocol from its own directory: as grpc/health/v1/, its module would land
    # inside grpcio's package "grpc", where Python would not look for it.
    health_dir = os.path.join(args.proto_dir, "grpc", "health", "v1")
    for include, proto in ((args.proto_dir, "wasserwarp/v1/validation.proto"),
                           (health_dir, "health.proto")):
        subprocess.run([args.protoc, f"--python_out={out_dir}", f"--grpc_out={out_dir}",
                        f"--plugin=protoc-gen-grpc={args.grpc_python_plugin}",
                        "-I", include, proto], check=True)
    sys.path.insert(0, out_dir)


class Server:
    """A wasserwarp-server on a free loopback port."""

    def __init__(self, program, log_path, flags=()):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen([program, "--listen", "127.0.0.1:0", "--data_dir=",
                                         *flags],
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
        """SIGTERM, then the exit status; None when it did not exit in time."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return None
        finally:
            self.log.close()

    def stop_and_check(self):
        """Stops the server; an AssertionError with its log unless it exited 0."""
        status = self.stop()
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            server_log = log.read()
        if status != 0:
            raise AssertionError(f"server exit status {status} after SIGTERM; log:\n{server_log}")


class ServerTestCase(unittest.TestCase):
    """A real server for the whole test class, a scratch directory and a channel to the server.
    Subclasses may override prepare (before the server starts: generate stubs into the scratch
    directory) and connected (after the channel is ready: make stubs)."""

    args = None  # set by run()

    @classmethod
    def prepare(cls, scratch_dir):
        pass

    @classmethod
    def connected(cls):
        pass

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix=f"{cls.__name__}_")
        cls.prepare(cls.tmp.name)
        cls.server = Server(cls.args.server, os.path.join(cls.tmp.name, "server.log"))
        # Default options: gRPC's 4 MiB receive limit, as any client has it.
        cls.channel = grpc.insecure_channel(cls.server.address)
        grpc.channel_ready_future(cls.channel).result(timeout=10)
        cls.connected()

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        try:
            cls.server.stop_and_check()
        finally:
            cls.tmp.cleanup()


def run(description, module):
    """Parses the command line into module.ARGS and runs the module's tests."""
    args, argv = parse_args(description)
    module.ARGS = args
    ServerTestCase.args = args
    unittest.main(module=module, argv=argv, verbosity=2)
