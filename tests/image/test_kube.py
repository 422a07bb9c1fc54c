#!/usr/bin/env python3
"""`make test-kube`: deploy/kubernetes/deployment.yaml under `podman kube play`.

Podman plays Pods, Deployments and PersistentVolumeClaims only: the Services, the
NetworkPolicy, the PodDisruptionBudget and the HorizontalPodAutoscaler have nothing to play
them here (tests/deploy_manifests_test.py checks them against the Deployment). The Deployment
runs on a network of its own at a fixed address, beside a PostgreSQL (the stand-in image of
tests/image/standins/postgres), with the Secrets it names made as deploy/README.md says, from
deploy/make-credentials.sh's files. Where Debian 12's podman 4.3 falls short of a kubelet the
test does the kubelet's part and says so:
- a `secret` volume crashes podman 4.3 (nil pointer in VolumeFromSecret): the Secrets' files
  are mounted from the directories they were made from (hostPath), owned by the image's user
  as fsGroup would make them readable; secretKeyRef environment variables are podman secrets;
- podman does not expand $(VAR) in args: the test expands them from the container's env;
- podman runs neither exec readiness nor startup probes: the test runs their command with
  `podman exec`;
- the ulimits podman needs here come from a containers.conf (kube play takes no --ulimit).
Checks: the pod serves the gRPC health probe over TLS, the probes' command succeeds, the
demo's validations of variants A and B go through it on PostgreSQL, and SIGTERM ends the server
with exit status 0.
"""

import base64
import copy
import json
import os
import re
import secrets
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from harness import (REPO, DemoValidation, Podman, build_standin, check, give_to_image_user, log,
                     main_wrapper, make_credentials, wait_serving)

MANIFESTS = REPO / "deploy" / "kubernetes"
PLAYABLE = ("Pod", "Deployment", "PersistentVolumeClaim")


def secret_sources(container, volumes):
    """The Secrets the container reads: {secret name: {key: mounted file or None}}."""
    names = {}
    for variable in container.get("env", []):
        reference = variable.get("valueFrom", {}).get("secretKeyRef")
        if reference:
            names.setdefault(reference["name"], {})[reference["key"]] = None
    for volume in volumes:
        if "secret" in volume:
            names.setdefault(volume["secret"]["secretName"], {})
    return names


def as_podman_plays(deployment, image, secret_files, secret_values):
    """The Deployment with the kubelet's part done (see the module's doc string), on `image`."""
    played = copy.deepcopy(deployment)
    pod = played["spec"]["template"]["spec"]
    pod["containers"][0]["image"] = image
    for volume in pod["volumes"]:
        secret = volume.pop("secret", None)
        if secret is None:
            continue
        for item in secret.get("items", []):
            check(item["key"] == item["path"], f"the shim mounts a Secret's files by key, but "
                  f"{volume['name']} maps {item['key']} to {item['path']}")
        volume["hostPath"] = {"path": str(secret_files[secret["secretName"]]),
                              "type": "Directory"}
    container = pod["containers"][0]
    env = {}
    for variable in container.get("env", []):
        reference = variable["valueFrom"]["secretKeyRef"]
        env[variable["name"]] = secret_values[reference["name"]][reference["key"]]
    container["args"] = [re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], arg)
                         for arg in container["args"]]
    return played


def run(args):
    podman = Podman(args.podman, args.podman_limits)
    postgres_image = build_standin(podman, "postgres")
    objects = [d for path in sorted(MANIFESTS.glob("*.yaml"))
               for d in yaml.safe_load_all(path.read_text()) if d and "kind" in d]
    skipped = sorted({o["kind"] for o in objects} - set(PLAYABLE) - {"Kustomization"})
    log(f"podman kube play does not play {', '.join(skipped)}")
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    container_name = f"{deployment['metadata']['name']}-pod-0-{container['name']}"

    tag = f"wasserwarp-kube-test-{os.getpid()}"
    octet = 100 + os.getpid() % 150
    pod_ip, postgres_ip = f"10.89.{octet}.10", f"10.89.{octet}.11"
    with tempfile.TemporaryDirectory(prefix="wasserwarp-test-kube-") as work:
        work = Path(work)
        conf = work / "containers.conf"
        limits = [v for k, v in zip(podman.limits, podman.limits[1:]) if k == "--ulimit"]
        conf.write_text(f"[containers]\ndefault_ulimits = {json.dumps(limits)}\n")
        play_env = dict(os.environ, CONTAINERS_CONF=str(conf))
        credentials = make_credentials(work / "credentials", [pod_ip])
        give_to_image_user(credentials)
        demo = DemoValidation(args.cli, args.example_data, args.validate_args, work)
        password = secrets.token_hex(16)
        # The Secrets, as deploy/README.md makes them with kubectl; podman keeps their data.
        secret_values = {
            "wasserwarp-postgres": {"url": f"postgresql://wasserwarp@{postgres_ip}:5432/"
                                           f"wasserwarp?sslmode=disable", "password": password},
            "wasserwarp-tls": {p.name: p.read_text() for p in (credentials / "tls").iterdir()},
            "wasserwarp-tokens": {p.name: p.read_text() for p in (credentials / "auth").iterdir()},
        }
        (work / "postgres-ca").mkdir()
        secret_files = {"wasserwarp-postgres": work / "postgres-ca",
                        "wasserwarp-tls": credentials / "tls",
                        "wasserwarp-tokens": credentials / "auth"}
        needed = secret_sources(container, pod["volumes"])
        check(set(needed) <= set(secret_values), f"the Deployment reads Secrets {sorted(needed)}")
        played = work / "deployment.yaml"
        played.write_text(yaml.safe_dump(as_podman_plays(deployment, args.image,
                                                         secret_files, secret_values)))
        try:
            podman("network", "create", "--subnet", f"10.89.{octet}.0/24", tag)
            podman.run_detached("--name", f"{tag}-postgres", "--network", tag, "--ip",
                                postgres_ip, "-e", "POSTGRES_USER=wasserwarp",
                                "-e", f"POSTGRES_PASSWORD={password}",
                                "-e", "POSTGRES_DB=wasserwarp", postgres_image)
            for name, data in secret_values.items():
                podman("secret", "rm", name, check_rc=False)
                encoded = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
                podman("secret", "create", name, "-", input_text=json.dumps(encoded))

            started = time.monotonic()
            result = play(podman, play_env, tag, pod_ip, played)
            log(f"podman kube play: {time.monotonic() - started:.1f} s\n{result.strip()}")
            waited = wait_serving(f"{pod_ip}:50051", credentials / "client" / "ca.crt", 180)
            log(f"pod {pod_ip}: gRPC health SERVING over TLS {waited:.1f} s later")
            for probe in ("startupProbe", "readinessProbe"):
                command = container[probe]["exec"]["command"]
                answer = podman("exec", container_name, *command, check_rc=False)
                check(answer.returncode == 0, f"the {probe}'s command failed:\n"
                      f"{answer.stdout}{answer.stderr}")
            log("the startup and readiness probes' command succeeds in the pod")
            check(podman("exec", container_name, "touch", "/x", check_rc=False).returncode != 0,
                  "readOnlyRootFilesystem: the root filesystem is writable")

            validating = time.monotonic()
            demo.check_both(f"{pod_ip}:50051", credentials / "client")
            log(f"demo validations through the pod, on PostgreSQL: "
                f"{time.monotonic() - validating:.1f} s")

            stopping = time.monotonic()
            grace = str(pod["terminationGracePeriodSeconds"])
            podman("stop", "--time", grace, container_name, timeout=120)
            code = podman.exit_code(container_name)
            check(code == 0, f"after SIGTERM the server exited {code}:\n"
                  f"{podman.logs(container_name)}")
            log(f"SIGTERM: exit status 0 after {time.monotonic() - stopping:.1f} s")
        finally:
            # The image's data volume, anonymous as the Deployment mounts nothing there.
            volumes = podman("inspect", "--format", "{{range .Mounts}}{{.Name}} {{end}}",
                             container_name, check_rc=False).stdout.split()
            podman("kube", "down", str(played), check_rc=False)
            for volume in volumes:
                podman("volume", "rm", "-f", volume, check_rc=False)
            podman("rm", "-f", "-v", f"{tag}-postgres", check_rc=False)
            podman("network", "rm", "-f", tag, check_rc=False)
            for name in secret_values:
                podman("secret", "rm", name, check_rc=False)


def play(podman, env, network, ip, manifest):
    argv = podman.command + ["kube", "play", "--network", network, "--ip", ip, str(manifest)]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    check(result.returncode == 0, f"{shlex.join(argv)} exited {result.returncode}:\n"
          f"{result.stdout}{result.stderr}")
    return result.stdout


def main():
    main_wrapper(run, __doc__)


if __name__ == "__main__":
    main()
