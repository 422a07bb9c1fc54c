#!/usr/bin/env python3
"""`make test-compose`: deploy/docker-compose.yml under podman-compose.

The shipped file, with tests/image/compose.standins.yml over it (PostgreSQL and Prometheus from
the stand-in images built here from Debian's packages; the replicas from `make image`'s image),
credentials from deploy/make-credentials.sh, and free host ports. Checks: both replicas answer
the gRPC health probe over TLS and pass their Compose healthcheck (the Kubernetes probes'
command); the demo's validation of variant A goes through wasserwarp-1 and of variant B through
wasserwarp-2, both on the one PostgreSQL; Prometheus scrapes both replicas; stopping a replica
(SIGTERM) gives exit status 0. Prints how long each step took.
"""

import json
import os
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from harness import (REPO, STANDIN_IMAGES, DemoValidation, Podman, build_standin, check,
                     free_port, give_to_image_user, log, main_wrapper, make_credentials,
                     wait_serving)

REPLICAS = ("wasserwarp-1", "wasserwarp-2")


def prometheus_up(port):
    """up{job="wasserwarp"} by instance, from Prometheus' query API."""
    query = urllib.parse.urlencode({"query": 'up{job="wasserwarp"}'})
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?{query}",
                                timeout=10) as response:
        answer = json.load(response)
    return {r["metric"]["instance"]: r["value"][1] for r in answer["data"]["result"]}


def run(args):
    podman = Podman(args.podman, args.podman_limits)
    for name in STANDIN_IMAGES:
        build_standin(podman, name)
    project = f"wasserwarp-test-{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="wasserwarp-test-compose-") as work:
        work = Path(work)
        credentials = make_credentials(work / "credentials", REPLICAS)
        give_to_image_user(credentials)
        demo = DemoValidation(args.cli, args.example_data, args.validate_args, work)
        ports = {"WASSERWARP_1_GRPC_PORT": free_port(), "WASSERWARP_2_GRPC_PORT": free_port(),
                 "WASSERWARP_PROMETHEUS_PORT": free_port()}
        env = dict(os.environ, WASSERWARP_CREDENTIALS=str(credentials),
                   WASSERWARP_IMAGE=args.image, **{k: str(v) for k, v in ports.items()})
        compose = ["podman-compose", "-p", project,
                   "--podman-args", " ".join(podman.command[1:]),
                   "--podman-run-args", " ".join(podman.limits),
                   "-f", str(REPO / "deploy" / "docker-compose.yml"),
                   "-f", str(REPO / "tests" / "image" / "compose.standins.yml")]

        def compose_run(*words, timeout=600):
            result = subprocess.run(compose + list(words), env=env, capture_output=True,
                                    text=True, timeout=timeout, check=False)
            check(result.returncode == 0, f"podman-compose {' '.join(words)} exited "
                  f"{result.returncode}:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")
            return result

        containers = {name: f"{project}_{name}_1" for name in REPLICAS}
        try:
            started = time.monotonic()
            compose_run("up", "-d", "--no-build")
            log(f"podman-compose up -d: {time.monotonic() - started:.1f} s")
            for name, variable in zip(REPLICAS, ports):
                waited = wait_serving(f"127.0.0.1:{ports[variable]}",
                                      credentials / "client" / "ca.crt", 180)
                log(f"{name}: gRPC health SERVING over TLS after {waited:.1f} s more")
                health = podman("healthcheck", "run", containers[name], check_rc=False)
                check(health.returncode == 0, f"{name}: its Compose healthcheck failed:\n"
                      f"{health.stdout}{health.stderr}\n{podman.logs(containers[name])}")

            validating = time.monotonic()
            for name, variable, variant, expected in ((REPLICAS[0], "WASSERWARP_1_GRPC_PORT",
                                                       "a", 0),
                                                      (REPLICAS[1], "WASSERWARP_2_GRPC_PORT",
                                                       "b", 1)):
                result = demo.validate(f"127.0.0.1:{ports[variable]}", credentials / "client",
                                       variant)
                check(result.returncode == expected,
                      f"validate of variant {variant.upper()} through {name} exited "
                      f"{result.returncode}, not {expected}:\n{result.stdout}{result.stderr}")
            log(f"demo validations: A through wasserwarp-1, B through wasserwarp-2: "
                f"{time.monotonic() - validating:.1f} s")

            scraping = time.monotonic()
            expected_up = {f"{name}:9464": "1" for name in REPLICAS}
            up = {}
            while time.monotonic() - scraping < 120 and up != expected_up:
                try:
                    up = prometheus_up(ports["WASSERWARP_PROMETHEUS_PORT"])
                except OSError:
                    up = {}
                if up != expected_up:
                    time.sleep(2)
            check(up == expected_up, f"Prometheus' up{{job=\"wasserwarp\"}} is {up}, "
                  f"not {expected_up}")
            log(f"Prometheus scrapes both replicas ({time.monotonic() - scraping:.1f} s)")

            stopping = time.monotonic()
            for name in REPLICAS:
                podman("stop", "--time", "60", containers[name], timeout=120)
                code = podman.exit_code(containers[name])
                check(code == 0, f"{name} exited {code} after SIGTERM:\n"
                      f"{podman.logs(containers[name])}")
            log(f"both replicas stopped by SIGTERM with exit status 0 "
                f"({time.monotonic() - stopping:.1f} s)")
        finally:
            subprocess.run(compose + ["down", "-v"], env=env, capture_output=True, timeout=300,
                           check=False)
            podman("network", "rm", "-f", f"{project}_default", check_rc=False)


def main():
    main_wrapper(run, __doc__)


if __name__ == "__main__":
    main()
