#!/usr/bin/env python3
"""The whole CLI against scipy's linear_sum_assignment and POT's emd2 solve alone (issue 41).

On the one-sample runs of bench/path_sweep.cc (the same generator, its folders NxM_1_C under --dir
for C in --channels; run `make bench-paths` or path_sweep with --sizes 2000x2000,2000x3000
--samples 1 --channels 1,3 first): `wasserwarp validate` as the user runs it (default path,
whole process: reading the files, every TWED, the solve, the report), best of --repeats, against
the solve alone of the TWED matrix the CLI computed (`validate --exhaustive --cost-matrix`):
scipy's linear_sum_assignment where n == m, POT's emd2 with uniform weights on every size, best
of --repeats. W must agree to 1e-9 relative. Prints one table.

  bench/cli_vs_scipy_pot.py --cli build/client/wasserwarp --dir build/path_sweep \
      [--sizes 2000x2000 2000x3000] [--channels 3 1] [--repeats 3]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import ot
from scipy.optimize import linear_sum_assignment


def run_cli(cli, runs, report, extra):
    start = time.perf_counter()
    subprocess.run([cli, "validate", "--sim", os.path.join(runs, "sim"), "--ref",
                    os.path.join(runs, "ref"), "--json", report] + extra,
                   check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(report) as f:
        return seconds, json.load(f)


def best(repeats, solve):
    fastest, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = solve()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest, value


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default="build/client/wasserwarp")
    parser.add_argument("--dir", default="build/path_sweep")
    parser.add_argument("--sizes", nargs="+", default=["2000x2000", "2000x3000"])
    parser.add_argument("--channels", nargs="+", type=int, default=[3, 1])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="cli-vs-scipy-") as folder:
        report = os.path.join(folder, "report.json")
        for size, channels in [(s, c) for c in args.channels for s in args.sizes]:
            runs = os.path.join(args.dir, f"{size}_1_{channels}")
            if not os.path.isdir(os.path.join(runs, "ref")):
                print(f"{runs}: no runs; run path_sweep --sizes {size} --samples 1 --channels "
                      f"{channels} first", file=sys.stderr)
                return 1
            cli_s, chosen = float("inf"), None
            for _ in range(args.repeats):
                seconds, chosen = run_cli(args.cli, runs, report, [])
                cli_s = min(cli_s, seconds)
            _, full = run_cli(args.cli, runs, report, ["--exhaustive", "--cost-matrix"])
            costs = np.asarray(full["cost_matrix"], dtype=np.float64)
            n, m = costs.shape
            w = chosen["distance"]
            scipy_s = None
            if n == m:
                scipy_s, pick = best(args.repeats, lambda: linear_sum_assignment(costs))
                scipy_w = float(costs[pick].sum()) / n
                failed |= abs(scipy_w - w) > 1e-9 * max(1.0, abs(w))
            a, b = np.full(n, 1.0 / n), np.full(m, 1.0 / m)
            pot_s, pot_w = best(args.repeats, lambda: ot.emd2(a, b, costs, numItermax=10**8))
            failed |= abs(float(pot_w) - w) > 1e-9 * max(1.0, abs(w))
            rows.append((size, channels, chosen.get("path", "?"), cli_s, scipy_s, pot_s, w,
                         float(pot_w)))
            print(f"  {size}, {channels} ch: CLI {cli_s:.3f} s, POT {pot_s:.3f} s", file=sys.stderr,
                  flush=True)

    print(f"{'runs':<10} {'ch':>2} {'path':<10} {'CLI s':>7} {'scipy s':>8} {'POT s':>7} {'CLI/scipy':>9} "
          f"{'CLI/POT':>8}  {'W':>20}  {'POT W':>20}")
    for size, channels, path, cli_s, scipy_s, pot_s, w, pot_w in rows:
        scipy_text = f"{scipy_s:>8.3f}" if scipy_s is not None else f"{'-':>8}"
        ratio = f"{cli_s / scipy_s:>9.2f}" if scipy_s is not None else f"{'-':>9}"
        print(f"{size:<10} {channels:>2} {path:<10} {cli_s:>7.3f} {scipy_text} {pot_s:>7.3f} {ratio} "
              f"{cli_s / pot_s:>8.2f}  {w:>20.15g}  {pot_w:>20.15g}")
    print("CLI: `wasserwarp validate`, the whole process, best of %d; scipy and POT: the solve "
          "alone on the CLI's TWED matrix, best of %d." % (args.repeats, args.repeats))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
