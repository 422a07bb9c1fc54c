"""Fixtures of the Python client's tests: a real wasserwarp-server on a free loopback port
(harness.Server, as the other Python tests start it), a Client connected to it, the CLI, and
runs to upload.

The package must be built and on PYTHONPATH, and WASSERWARP_SERVER and WASSERWARP_CLI must
name the binaries; tests/CMakeLists.txt does both (ctest -R python_client).
"""

import os
import pathlib
import subprocess
import sys
from typing import Iterator, List, Tuple

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402  (exits 77 without python3-grpcio)
import wasserwarp  # noqa: E402

CHANNELS = ["yaw_rate", "lateral_acceleration"]


def binary(variable: str) -> str:
    """A program named by an environment variable."""
    path = os.environ.get(variable)
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"{variable} must name an executable (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[harness.Server]:
    """One server for every test; its exit status after SIGTERM is checked."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    running = harness.Server(binary("WASSERWARP_SERVER"), str(log))
    yield running
    running.stop_and_check()


@pytest.fixture(scope="session")
def cli() -> str:
    return binary("WASSERWARP_CLI")


@pytest.fixture
def client(server: harness.Server) -> Iterator[wasserwarp.Client]:
    with wasserwarp.Client(server.address, timeout=60) as connected:
        yield connected


def lane_change(seed: int, samples: int, gain: float) -> Tuple[np.ndarray, np.ndarray]:
    """Times and two channels of a noisy lane change, sampled at about 100 Hz."""
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.008, 0.012, samples))
    phase = 2 * np.pi * times / times[-1]
    values = gain * np.column_stack([np.sin(phase), 3.0 * np.cos(phase)])
    values += rng.normal(0, 0.05, values.shape)
    return times, values


def runs(prefix: str, count: int, gain: float, seed: int) -> List[tuple]:
    """(run_id, times, values, channels) runs of 300 to 400 samples."""
    result = []
    for k in range(count):
        times, values = lane_change(seed + k, 300 + 25 * k, gain)
        result.append((f"{prefix}{k}", times, values, CHANNELS))
    return result


def openssl(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def certificates(directory: pathlib.Path) -> pathlib.Path:
    """A CA (ca.pem) and the server (server.pem, server.key, for 127.0.0.1) and client
    (client.pem, client.key) certificates it signed, written into `directory`."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
            "-subj", "/CN=wasserwarp test CA", cwd=directory)
    (directory / "server.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    (directory / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for name in ("server", "client"):
        openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}", cwd=directory)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "1", "-extfile", f"{name}.ext",
                "-out", f"{name}.pem", cwd=directory)
    return directory
