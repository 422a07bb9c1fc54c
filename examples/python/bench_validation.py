#!/usr/bin/env python3
"""A bench script: validates a model's simulated runs against measured reference runs kept on
a wasserwarp-server.

The references are uploaded once, into a session that outlives the script (--ttl); later
calls find them there and send only what the session does not hold yet. Then the model's runs
are validated with a verdict, the summary printed and the report written as JSON.

    bench_validation.py --server H:P --session rig7-v12 --ref measured/ --sim model-v12/ \\
        --max-ratio 1.5 --json report.json

Runs are wasserwarp CSV files (a `time` column, then one column per channel), one per run,
the run id being the file name without .csv. Exit status: 0 PASS, 1 FAIL, 2 refused input.
"""

import argparse
import datetime
import json
import pathlib
import sys
from typing import List, Set, Tuple

import grpc
import numpy as np

import wasserwarp


def read_runs(directory: pathlib.Path) -> List[Tuple[str, np.ndarray, np.ndarray, List[str]]]:
    """Every *.csv in the directory, sorted by name, as (run_id, times, values, channels)."""
    runs = []
    for path in sorted(directory.glob("*.csv")):
        with path.open(encoding="utf-8-sig") as file:
            columns = [name.strip() for name in file.readline().split(",")]
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        runs.append((path.stem, data[:, 0], data[:, 1:], columns[1:]))
    if not runs:
        sys.exit(f"{directory}: no *.csv files")
    return runs


def held_runs(client: wasserwarp.Client, session: str, role: str) -> Set[str]:
    """The ids of the runs of `role` the session already holds."""
    return {run.run_id for run in client.get_session(session).runs if run.role == role}


def upload_missing(client: wasserwarp.Client, session: str, role: str, runs: list) -> None:
    """Uploads the runs the session does not hold yet."""
    held = held_runs(client, session, role)
    missing = [run for run in runs if run[0] not in held]
    if missing:
        committed = client.upload(session, role, missing)
        print(f"uploaded {len(committed)} {role} runs", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="HOST:PORT of the wasserwarp-server")
    parser.add_argument("--session", required=True, help="session id: one per reference set "
                        "and model version")
    parser.add_argument("--ref", type=pathlib.Path, required=True, help="measured runs (CSV)")
    parser.add_argument("--sim", type=pathlib.Path, required=True, help="the model's runs")
    parser.add_argument("--ttl", type=float, default=720.0, help="session idle TTL, hours")
    parser.add_argument("--max-ratio", type=float, default=1.5)
    parser.add_argument("--json", type=pathlib.Path, help="write the report here")
    args = parser.parse_args()

    with wasserwarp.Client(args.server) as client:
        try:
            client.get_session(args.session)
        except wasserwarp.WasserwarpError as error:
            if error.code != grpc.StatusCode.NOT_FOUND:
                raise
            client.create_session(args.session, scale="reference-std", deletion_penalty=0.3,
                                  resample_rate=100.0,
                                  idle_ttl=datetime.timedelta(hours=args.ttl))
        upload_missing(client, args.session, "reference", read_runs(args.ref))
        upload_missing(client, args.session, "simulation", read_runs(args.sim))

        def show(progress: wasserwarp.Progress) -> None:
            print(f"\r{progress.phase}: {progress.pairs_done}/{progress.pairs_total} pairs",
                  end="", file=sys.stderr)

        result = client.validate(args.session, progress=show, max_ratio=args.max_ratio)
        print(file=sys.stderr)

    verdict = result.verdict
    print(f"W_{result.order:g} = {result.distance:.6g} ({result.solver}), "
          f"{len(result.simulation)} simulated against {len(result.reference)} measured runs")
    worst = np.argsort(result.sim_contributions)[::-1][:5]
    for index in worst:
        print(f"  {result.simulation[index].id}: contribution "
              f"{result.sim_contributions[index]:.4g}")
    for rule in verdict.rules:
        print(f"  {rule.name}: {rule.value:.4g} (threshold {rule.threshold:g}) "
              f"{'holds' if rule.passed else 'fails'}: {rule.basis}")
    print("PASS" if verdict.passed else "FAIL")
    if args.json:
        args.json.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (wasserwarp.WasserwarpError, ValueError) as error:
        print(f"bench_validation.py: {error}", file=sys.stderr)
        sys.exit(2)
