"""What the image, Compose and Kubernetes tests share: podman with this machine's options,
credentials from deploy/make-credentials.sh, the gRPC health probe over TLS, and the demo's
validation through the host's CLI.

These tests start real containers and take minutes: they are Makefile targets
(`make test-image`, `make test-compose`, `make test-kube`), not part of ctest.
"""

import argparse
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc

REPO = Path(__file__).resolve().parents[2]
HEALTH_METHOD = "/grpc.health.v1.Health/Check"
SERVICE = "wasserwarp.v1.ValidationService"
# The image's user (Dockerfile, USER) and where its entry point expects the credentials.
IMAGE_UID = 10001
TLS_DIR = "/etc/wasserwarp/tls"
AUTH_DIR = "/etc/wasserwarp/auth"


class Failure(Exception):
    """A check that did not hold; its message says what was expected and what was seen."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class Podman:
    """podman as the Makefile runs it (PODMAN, PODMAN_LIMITS)."""

    def __init__(self, command, limits):
        self.command = shlex.split(command)
        self.limits = shlex.split(limits)

    def __call__(self, *args, check_rc=True, timeout=300, input_text=None, nice=False):
        # nice: builds share the machine's few cores with everyone else's work.
        argv = (["nice", "-n", "10"] if nice else []) + self.command + list(args)
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                input=input_text, check=False)
        if check_rc and result.returncode != 0:
            raise Failure(f"{shlex.join(argv)} exited {result.returncode}:\n"
                          f"{result.stdout}{result.stderr}")
        return result

    def run_detached(self, *args):
        """podman run -d with the limits; the container's id."""
        return self("run", "-d", *self.limits, *args).stdout.strip()

    def logs(self, container):
        result = self("logs", container, check_rc=False)
        return result.stdout + result.stderr

    def exit_code(self, container):
        return int(self("inspect", "--format", "{{.State.ExitCode}}", container).stdout.strip())


STANDINS = REPO / "tests" / "image" / "standins"
# Stand-ins for the official images Compose and the Kubernetes test need, where no registry
# serves them: built here from Debian's packages (tests/image/standins/).
STANDIN_IMAGES = {"postgres": "localhost/wasserwarp-standin-postgres:15",
                  "prometheus": "localhost/wasserwarp-standin-prometheus:latest"}


def build_standin(podman, name):
    """The stand-in image `name`, built unless podman has it; its tag."""
    tag = STANDIN_IMAGES[name]
    if podman("image", "exists", tag, check_rc=False).returncode != 0:
        started = time.monotonic()
        podman("build", *podman.limits, "--pull=never", "-t", tag, str(STANDINS / name),
               timeout=1200, nice=True)
        log(f"stand-in {tag} built in {time.monotonic() - started:.0f} s")
    return tag


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_credentials(directory, names=()):
    """deploy/make-credentials.sh, as deploy/README.md tells users to run it."""
    subprocess.run(["sh", str(REPO / "deploy" / "make-credentials.sh"), str(directory),
                    *names], check=True, capture_output=True)
    return Path(directory)


def give_to_image_user(credentials):
    """The server's files owned by the image's user, as deploy/docker-compose.yml tells users to
    do (and as a Kubernetes fsGroup makes a Secret's files readable)."""
    for part in ("tls", "auth"):
        subprocess.run(["chown", "-R", f"{IMAGE_UID}:{IMAGE_UID}", str(Path(credentials) / part)],
                       check=True)


def health_request(service):
    """A grpc.health.v1.HealthCheckRequest, encoded by hand: field 1, the service name."""
    name = service.encode()
    return (b"\x0a" + bytes([len(name)]) + name) if name else b""


def health_status(target, ca_file, service="", timeout=2.0):
    """The health service's answer over TLS: 1 SERVING, 2 NOT_SERVING; None if no answer."""
    credentials = grpc.ssl_channel_credentials(root_certificates=Path(ca_file).read_bytes())
    with grpc.secure_channel(target, credentials) as channel:
        check_call = channel.unary_unary(HEALTH_METHOD)
        try:
            answer = check_call(health_request(service), timeout=timeout)
        except grpc.RpcError:
            return None
    # HealthCheckResponse: field 1 (varint), the status; absent means UNKNOWN (0).
    return answer[1] if len(answer) >= 2 and answer[0] == 0x08 else 0


def wait_serving(target, ca_file, deadline_s, on_wait=None):
    """Waits for SERVING from the gRPC health probe (the service's too); seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        if health_status(target, ca_file) == 1 and health_status(target, ca_file, SERVICE) == 1:
            return time.monotonic() - start
        if on_wait is not None:
            on_wait()
        time.sleep(0.5)
    raise Failure(f"{target}: the gRPC health probe did not answer SERVING in {deadline_s} s")


class DemoValidation:
    """`make demo`'s validations of variants A and B, through a server (`validate --server`)."""

    def __init__(self, cli, example_data, validate_args, work):
        self.cli = cli
        self.data = Path(work) / "demo-data"
        self.validate_args = shlex.split(validate_args)
        subprocess.run([example_data, "--out", str(self.data)], check=True,
                       capture_output=True)

    def validate(self, target, client_dir, variant, extra=()):
        argv = [self.cli, "validate", "--server", target,
                "--tls-ca", str(Path(client_dir) / "ca.crt"),
                "--token-file", str(Path(client_dir) / "token"),
                "--sim", str(self.data / f"sim_{variant}"), "--ref", str(self.data / "ref"),
                *self.validate_args, *extra]
        return subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)

    def check_both(self, target, client_dir):
        """A passes (exit 0), B fails (exit 1): the demo's verdicts, computed by the server."""
        for variant, expected in (("a", 0), ("b", 1)):
            result = self.validate(target, client_dir, variant)
            check(result.returncode == expected,
                  f"validate --server {target} of variant {variant.upper()} exited "
                  f"{result.returncode}, not {expected}:\n{result.stdout}{result.stderr}")
            verdict = [line for line in result.stdout.splitlines() if "verdict" in line.lower()]
            log(f"variant {variant.upper()} through {target}: exit {result.returncode} "
                f"{verdict[:1]}")


def main_wrapper(run, doc):
    """Parses the options every test takes (the Makefile's IMAGE_TEST_ARGS) and runs run(args);
    prints FAILED with the reason and exits 1 on a Failure."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--image", required=True)
    parser.add_argument("--cli", required=True, help="the host's wasserwarp CLI")
    parser.add_argument("--example-data", required=True, help="wasserwarp-example-data")
    parser.add_argument("--validate-args", required=True, help="the demo's validate options")
    parser.add_argument("--podman", default="podman")
    parser.add_argument("--podman-limits", default="")
    args = parser.parse_args()
    start = time.monotonic()
    try:
        run(args)
    except Failure as failure:
        log(f"FAILED: {failure}")
        sys.exit(1)
    log(f"PASSED in {time.monotonic() - start:.0f} s")
