"""Upload throughput of the Python client against the C++ CLI's, on one real wasserwarp-server
over loopback: the same 10 runs of 100 000 samples (1 and 3 channels) uploaded by each, the
Python client from numpy arrays, the CLI from the same samples as CSV files (its parsing
included, as a bench script calling it would pay it). Megabytes are the samples' float64 bytes
(times and values). Median of --repeat uploads each.

    make bench-python
    PYTHONPATH=build/tests/python-client/lib python3 bench/python_upload_bench.py \
        --server build/server/wasserwarp-server --cli build/client/wasserwarp
"""

import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "python"))
import harness  # noqa: E402
import wasserwarp  # noqa: E402

RUNS = 10
SAMPLES = 100_000


def workload(channels: int):
    rng = np.random.default_rng(channels)
    runs = []
    for k in range(RUNS):
        times = np.cumsum(rng.uniform(0.005, 0.015, SAMPLES))
        values = np.cumsum(rng.standard_normal((SAMPLES, channels)), axis=0)
        runs.append((f"run{k}", times, values, [f"c{c}" for c in range(channels)]))
    return runs


def megabytes(runs) -> float:
    return sum(times.nbytes + values.nbytes for _, times, values, _ in runs) / 1e6


def python_upload(address: str, runs) -> float:
    with wasserwarp.Client(address) as client:
        client.create_session("py")
        start = time.perf_counter()
        client.upload("py", "reference", runs)
        seconds = time.perf_counter() - start
        client.delete_session("py")
    return seconds


def cli_upload(cli: str, address: str, directory: pathlib.Path) -> float:
    subprocess.run([cli, "sessions", "create", "--server", address, "--session", "cli"], check=True,
                   capture_output=True)
    start = time.perf_counter()
    subprocess.run([cli, "upload", "--server", address, "--session", "cli", "--ref",
                    str(directory)], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    subprocess.run([cli, "sessions", "delete", "--server", address, "--session", "cli"], check=True,
                   capture_output=True)
    return seconds


def write_csv(runs, directory: pathlib.Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for run_id, times, values, channels in runs:
        table = np.column_stack([times, values])
        np.savetxt(directory / f"{run_id}.csv", table, fmt="%.17g", delimiter=",",
                   header=",".join(["time", *channels]), comments="")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="python_upload_bench_") as scratch:
        root = pathlib.Path(scratch)
        server = harness.Server(args.server, str(root / "server.log"))
        try:
            for channels in (1, 3):
                runs = workload(channels)
                write_csv(runs, root / f"csv{channels}")
                size = megabytes(runs)
                py = statistics.median(python_upload(server.address, runs)
                                       for _ in range(args.repeat))
                cli = statistics.median(cli_upload(args.cli, server.address,
                                                   root / f"csv{channels}")
                                        for _ in range(args.repeat))
                print(f"upload of {RUNS} runs of {SAMPLES} samples x {channels} channel(s), "
                      f"{size:.1f} MB: Python client {size / py:.0f} MB/s, "
                      f"C++ CLI from CSV {size / cli:.0f} MB/s (medians of {args.repeat})")
        finally:
            server.stop_and_check()
    return 0


if __name__ == "__main__":
    sys.exit(main())
