"""How fast the web view answers: time to first byte (median of repeated GETs over plain HTTP
on loopback) and, in headless Chromium, time from navigation start to the load event and to
every chart drawn, for the list of 1000 records and for the report of a 100 x 100 runs
validation (the page drawn from the stored report, and the page stored with it).

    python3 bench/web_view_bench.py --server build/server/wasserwarp-server \
        --cli build/client/wasserwarp --example-data build/examples/wasserwarp-example-data

Prints one line per measurement. Without selenium or chromium only the first-byte times.
"""

import argparse
import concurrent.futures
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "python"))
import web_view_fixture as fixture  # noqa: E402


def first_byte_seconds(port, path, repeats):
    """Median seconds from sending the request to the first byte of the answer, and its size."""
    times = []
    size = 0
    for _ in range(repeats):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.fp.peek(1)
        times.append(time.perf_counter() - start)
        body = response.read()
        if response.status != 200:
            raise AssertionError(f"GET {path}: {response.status}")
        size = len(body)
        connection.close()
    return statistics.median(times), size


def browser_seconds(driver, url, repeats):
    """Medians of navigation start to the load event and to every chart drawn (for a page
    without charts, to when the script could ask), in seconds."""
    loads, drawn = [], []
    for _ in range(repeats):
        driver.get("about:blank")
        driver.get(url)
        # A page without charts (the list) is drawn when it has loaded.
        charts = driver.execute_script("return document.querySelectorAll('canvas').length;")
        check = fixture.wait_for_charts(driver, seconds=120) if charts else {"canvases": 0}
        now = driver.execute_script("return performance.now();")
        timing = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return {load: n.loadEventEnd, first: n.responseStart};")
        loads.append(timing["load"] / 1000)
        drawn.append(now / 1000 if check["canvases"] or not charts else float("nan"))
    return statistics.median(loads), statistics.median(drawn)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--example-data", required=True)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="web_view_bench_") as directory:
        server = fixture.WebServer(args.server, directory,
                                   ["--max_queued_jobs", "4000", "--max_runs_per_session",
                                    "1000"])
        try:
            cli = fixture.Cli(args.cli, server, directory)
            small = os.path.join(directory, "small")
            big = os.path.join(directory, "big")
            subprocess.run([args.example_data, "--out", small, "--sim-runs", "2", "--ref-runs",
                            "2"], check=True, capture_output=True)
            subprocess.run([args.example_data, "--out", big, "--sim-runs", str(args.runs),
                            "--ref-runs", str(args.runs)], check=True, capture_output=True)
            cli.session_with_runs("many", small)
            start = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                list(pool.map(lambda k: cli("validate", "--session", "many", "--label",
                                            f"version=1.{k}"), range(args.records)))
            print(f"setup: {args.records} records in {time.perf_counter() - start:.1f} s")
            cli.session_with_runs("big", big)
            start = time.perf_counter()
            cli("validate", "--session", "big", "--label", "kind=drawn")
            cli("validate", "--session", "big", "--label", "kind=stored", "--report",
                os.path.join(directory, "big.html"))
            print(f"setup: two {args.runs} x {args.runs} validations in "
                  f"{time.perf_counter() - start:.1f} s")
            stored, drawn = cli.names("big")[:2]
            pages = {f"list of {args.records} records": f"/?page_size={args.records}",
                     f"report {args.runs}x{args.runs}, drawn from the stored report": f"/{drawn}",
                     f"report {args.runs}x{args.runs}, stored page": f"/{stored}"}
            for what, path in pages.items():
                seconds, size = first_byte_seconds(server.port, path, args.repeats)
                print(f"first byte: {what}: {seconds * 1000:.1f} ms ({size / 1e6:.2f} MB)")
            driver = fixture.chromium_driver()
            if driver is None:
                print("no selenium, chromium or chromedriver: no browser figures")
                return
            try:
                for what, path in pages.items():
                    load, charts = browser_seconds(driver, server.base + path, args.repeats)
                    drawn = "charts drawn" if "report" in what else "page shown"
                    print(f"chromium: {what}: load {load * 1000:.0f} ms, "
                          f"{drawn} {charts * 1000:.0f} ms")
            finally:
                driver.quit()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
