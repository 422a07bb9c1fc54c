#!/usr/bin/env python3
"""`make test-image`: the built image, run as the Kubernetes manifests run it.

Non-root (uid 10001, the image's user), a read-only root filesystem, no capabilities, a tmpfs
for the data directory, and TLS and tokens made by deploy/make-credentials.sh mounted where the
entry point expects them. Checks, in order: the entry point alone refuses to start without
credentials; with them the gRPC health probe answers SERVING over TLS; the manifests' probe
command (the image's CLI on localhost) succeeds inside the container; a call without a token is
refused; /metrics answers on its own port; the demo's validations of variants A and B give their
verdicts through the host's CLI with --server; SIGTERM ends the server with exit status 0.
Prints how long each step took (information, not a pass/fail threshold).
"""

import os
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import yaml

from harness import (AUTH_DIR, IMAGE_UID, REPO, TLS_DIR, DemoValidation, Podman, check, log,
                     main_wrapper, make_credentials, wait_serving)


def probe_command():
    """The readiness probe's command, as deploy/kubernetes/deployment.yaml gives it."""
    deployment = yaml.safe_load((REPO / "deploy" / "kubernetes" / "deployment.yaml").read_text())
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    return container["readinessProbe"]["exec"]["command"]


def secure_run_options(credentials):
    """podman run options that do what the Deployment's securityContext and volumes do."""
    return ["--user", f"{IMAGE_UID}:{IMAGE_UID}", "--read-only", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges",
            "--tmpfs", "/var/lib/wasserwarp:rw,size=256m,mode=0700,U",
            "--tmpfs", "/tmp:rw,size=64m,mode=1777",
            # U: owned by the container's user, as fsGroup makes a Secret's files readable.
            "-v", f"{credentials / 'tls'}:{TLS_DIR}:ro,U",
            "-v", f"{credentials / 'auth'}:{AUTH_DIR}:ro,U"]


def run(args):
    podman = Podman(args.podman, args.podman_limits)
    with tempfile.TemporaryDirectory(prefix="wasserwarp-test-image-") as work:
        work = Path(work)
        credentials = make_credentials(work / "credentials")
        demo = DemoValidation(args.cli, args.example_data, args.validate_args, work)
        name = f"wasserwarp-test-image-{int(time.time())}"
        try:
            # The entry point alone: no credentials, no server.
            bare = podman("run", "--rm", *podman.limits, args.image, check_rc=False, timeout=60)
            check(bare.returncode != 0,
                  f"the image started without TLS and token files:\n{bare.stdout}{bare.stderr}")
            log(f"without credentials the image exits {bare.returncode}: "
                f"{(bare.stderr.strip().splitlines() or [''])[-1][:200]}")

            started = time.monotonic()
            podman.run_detached("--name", name, *secure_run_options(credentials),
                                "-p", "127.0.0.1::50051", "-p", "127.0.0.1::9464", args.image)
            grpc_port = podman("port", name, "50051/tcp").stdout.strip().rsplit(":", 1)[1]
            metrics_port = podman("port", name, "9464/tcp").stdout.strip().rsplit(":", 1)[1]
            target = f"127.0.0.1:{grpc_port}"

            def still_running():
                state = podman("inspect", "--format", "{{.State.Running}}", name).stdout.strip()
                check(state == "true", f"the container stopped:\n{podman.logs(name)}")

            waited = wait_serving(target, credentials / "client" / "ca.crt", 120, still_running)
            log(f"gRPC health SERVING over TLS {waited:.1f} s after podman run "
                f"({time.monotonic() - started:.1f} s with the run)")

            user = podman("exec", name, "id", "-u").stdout.strip()
            check(user == str(IMAGE_UID), f"the server runs as uid {user}, not {IMAGE_UID}")
            writable = podman("exec", name, "touch", "/usr/local/bin/x", check_rc=False)
            check(writable.returncode != 0, "the root filesystem is writable")

            probe = podman("exec", name, *probe_command(), check_rc=False)
            check(probe.returncode == 0, f"the manifests' probe command failed "
                  f"(exit {probe.returncode}):\n{probe.stdout}{probe.stderr}")
            log("the manifests' probe (the image's CLI on localhost, TLS and token) succeeds")

            anonymous = subprocess.run(
                [args.cli, "sessions", "list", "--server", target, "--tls-ca",
                 str(credentials / "client" / "ca.crt")],
                capture_output=True, text=True, timeout=60, check=False,
                env={k: v for k, v in os.environ.items() if k != "WASSERWARP_TOKEN"})
            check(anonymous.returncode != 0 and "token" in anonymous.stderr.lower(),
                  f"a call without a token was not refused for want of one (exit "
                  f"{anonymous.returncode}):\n{anonymous.stdout}{anonymous.stderr}")
            log(f"without a token: {anonymous.stderr.strip()[:160]}")

            with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics",
                                        timeout=10) as response:
                metrics = response.read().decode()
            check("wasserwarp_" in metrics, "/metrics has no wasserwarp_ series")

            validating = time.monotonic()
            demo.check_both(target, credentials / "client")
            log(f"demo validations A and B through the image: "
                f"{time.monotonic() - validating:.1f} s")

            stopping = time.monotonic()
            podman("stop", "--time", "60", name, timeout=120)
            code = podman.exit_code(name)
            check(code == 0, f"after SIGTERM the server exited {code}:\n{podman.logs(name)}")
            log(f"SIGTERM: exit status 0 after {time.monotonic() - stopping:.1f} s")
        finally:
            podman("rm", "-f", name, check_rc=False)


def main():
    main_wrapper(run, __doc__)


if __name__ == "__main__":
    main()
