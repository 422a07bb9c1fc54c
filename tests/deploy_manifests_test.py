#!/usr/bin/env python3
"""Checks the deployment files against each other and against the server.

Every YAML file under deploy/ must parse (all its documents). The Helm chart
is rendered here by a small renderer for exactly the Go-template subset the
chart uses (helm itself is not installed here); its default rendering must
equal deploy/kubernetes/ object for object, and its TLS and auth values must
give flags that point at the files they mount. In every form the ports agree
with the server's --listen and --metrics_listen flags, the labels and selectors
agree, every flag passed is one `wasserwarp-server --help` lists, and the
Dockerfile exposes those ports, runs as a non-root user, carries OCI labels and
installs the packages of the libraries the built server and CLI link.

Secure by default: the Dockerfile's entry point, the manifests, the chart's
defaults and Compose serve gRPC with TLS and bearer tokens from mounted files
(Secrets), probe it with the image's CLI on localhost (Kubernetes' gRPC probes
cannot speak TLS), mount no service account token, keep /metrics off the
Services clients use and let only Prometheus reach it (NetworkPolicy).

State: the Kubernetes manifests and the chart's defaults pass --postgres_url
from an env var that a secretKeyRef fills (no Secret is committed), mount no
--data_dir and set no sessionAffinity, as every replica serves every call; the
chart's postgres.secretName "" gives the single-server SQLite layout (--data_dir
on an emptyDir, ClientIP affinity). Compose runs PostgreSQL, two replicas on it
and a Prometheus scraping both.

Over 500 lines: every deployment form (manifests, chart values, Compose, the
Dockerfile) is checked against the same rules (check_objects and its helpers)
on one set of parsed documents, which one file keeps together.

Usage: deploy_manifests_test.py --repo DIR --server PATH/wasserwarp-server --cli PATH/wasserwarp
"""

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
from pathlib import Path

import yaml

from helm_template import Chart, go_number, go_text

ARGS = None
HEALTH_SERVICE = "wasserwarp.v1.ValidationService"
DATA_DIR_FLAG = "--data_dir"
# The Secret the manifests read the database URL from; none is committed.
POSTGRES_SECRET = ("wasserwarp-postgres", "url")
# libpq reads the password from PGPASSWORD, which the Secret's optional key fills.
POSTGRES_PASSWORD_KEY = "password"
POSTGRES_CA_DIR = "/etc/wasserwarp/postgres"
# Where the image's CLI is, which the probes run; the flags that give the server credentials.
CLI_PATH = "/usr/local/bin/wasserwarp"
CREDENTIAL_FLAGS = ("tls_cert", "tls_key", "tls_client_ca", "auth_tokens_file")
# Added by the server of issue 40 (a non-loopback --listen without tokens or client
# certificates needs it); a server without it runs open anyway.
ALLOW_OPEN_FLAG = "allow_unauthenticated"


# --- What the server, the Dockerfile and the manifests say ---------------------


def server_flags():
    """Every flag `wasserwarp-server --help` lists."""
    result = subprocess.run([ARGS.server, "--help"], capture_output=True, text=True, check=False)
    flags = set(re.findall(r"^\s+--(\w+) ", result.stdout + result.stderr, re.M))
    if "listen" not in flags:
        raise AssertionError(f"--help lists no --listen:\n{result.stdout}{result.stderr}")
    return flags


def server_flag_defaults():
    """Each flag's default as `wasserwarp-server --help` prints it."""
    result = subprocess.run([ARGS.server, "--help"], capture_output=True, text=True, check=False)
    # Each flag's text runs from its name to the next flag's.
    parts = re.split(r"^\s+--(\w+) ", result.stdout + result.stderr, flags=re.M)
    defaults = {}
    for name, text in zip(parts[1::2], parts[2::2]):
        default = re.search(r"\sdefault: (.*?);\s*$", text, re.S)
        if default:
            defaults[name] = default.group(1)
    return defaults


def flag_values(args):
    """--name=value arguments as a dict; the last one wins, as in Abseil."""
    values = {}
    for arg in args:
        match = re.fullmatch(r"--(\w+)=(.*)", arg)
        if not match:
            raise AssertionError(f"{arg!r} is not --flag=value")
        values[match.group(1)] = match.group(2)
    return values


def flag_value(args, name):
    """The value of --name=value in a command line (None if absent); the last one wins."""
    found = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return found[-1] if found else None


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def env_reference(value):
    """The VAR of a flag value that is exactly $(VAR), as Kubernetes expands it in args."""
    match = re.fullmatch(r"\$\((\w+)\)", value)
    if not match:
        raise AssertionError(f"{value!r} is not $(VAR)")
    return match.group(1)


def seconds_of(duration):
    match = re.fullmatch(r"(\d+)s", duration)
    if not match:
        raise AssertionError(f"duration {duration!r} is not whole seconds")
    return int(match.group(1))


class Dockerfile:
    def __init__(self, path):
        text = Path(path).read_text()
        # Continuation lines joined, comments dropped.
        text = re.sub(r"\\\n", " ", text)
        self.instructions = []
        for line in text.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                keyword, _, rest = line.partition(" ")
                self.instructions.append((keyword.upper(), rest.strip()))
        froms = [i for i, (keyword, _) in enumerate(self.instructions) if keyword == "FROM"]
        self.build = self.instructions[froms[0]:froms[-1]]
        self.runtime = self.instructions[froms[-1]:]

    def runtime_all(self, keyword):
        return [rest for k, rest in self.runtime if k == keyword]

    def runtime_last(self, keyword):
        found = self.runtime_all(keyword)
        return found[-1] if found else None

    def exposed_ports(self):
        return {int(p.split("/")[0]) for rest in self.runtime_all("EXPOSE") for p in rest.split()}

    def entrypoint(self):
        return json.loads(self.runtime_last("ENTRYPOINT"))

    def cmd(self):
        return json.loads(self.runtime_last("CMD"))

    def label_keys(self):
        labels = " ".join(self.runtime_all("LABEL"))
        return set(re.findall(r"(org\.opencontainers\.image\.[\w.]+)=", labels))

    def runtime_packages(self):
        packages = set()
        for rest in self.runtime_all("RUN"):
            match = re.search(r"apt-get install (.*?)(&&|$)", rest)
            if match:
                packages |= {w for w in match.group(1).split() if not w.startswith("-")}
        return packages


def compose_defaults(text):
    """A Compose string with each ${VAR:-default} replaced by its default."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)


def by_kind(objects):
    found = {}
    for obj in objects:
        found.setdefault(obj["kind"], []).append(obj)
    return found


def load_kubernetes_dir(directory):
    objects = []
    for path in sorted(Path(directory).glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document is not None and document.get("kind") != "Kustomization":
                objects.append(document)
    return objects


# --- The tests -------------------------------------------------------------------


class DeployTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.repo = Path(ARGS.repo)
        cls.deploy = cls.repo / "deploy"
        cls.flags = server_flags()
        cls.docker = Dockerfile(cls.repo / "Dockerfile")
        cls.chart = Chart(cls.deploy / "helm" / "wasserwarp")
        cls.kubernetes = load_kubernetes_dir(cls.deploy / "kubernetes")

    # Shared checks of one set of Kubernetes objects.
    def check_objects(self, objects, where, postgres=POSTGRES_SECRET):
        """postgres: the (Secret, key) of the database URL; None for the SQLite layout."""
        kinds = by_kind(objects)
        for kind in ("Deployment", "Service", "PodDisruptionBudget"):
            self.assertIn(kind, kinds, where)
        self.assertNotIn("Secret", kinds, f"{where}: credentials are never committed")
        self.assertEqual(len(kinds["Deployment"]), 1, where)
        deployment = kinds["Deployment"][0]
        pod = deployment["spec"]["template"]
        container = pod["spec"]["containers"][0]
        self.assertEqual(container["command"], self.docker.entrypoint()[:1], where)

        flags = flag_values(container["args"])
        for name in flags:
            self.assertIn(name, self.flags, f"{where}: --{name} is not a server flag")
        tls = "tls_cert" in flags
        grpc_port = port_of(flags["listen"])
        metrics_port = port_of(flags["metrics_listen"])
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        self.assertEqual(ports, {"grpc": grpc_port, "metrics": metrics_port}, where)
        self.assertEqual(set(ports.values()), self.docker.exposed_ports(), where)

        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        self.assertIs(pod["spec"]["automountServiceAccountToken"], False, where)
        if tls:
            self.check_credentials(flags, mounts, volumes, where)
            self.check_cli_probes(container, grpc_port, flags, where)
        else:
            for probe_name in ("startupProbe", "livenessProbe", "readinessProbe"):
                probe = container[probe_name]
                self.assertEqual(probe["grpc"]["port"], grpc_port, f"{where} {probe_name}")
            self.assertEqual(container["readinessProbe"]["grpc"]["service"], HEALTH_SERVICE)
            self.assertNotIn("service", container["livenessProbe"]["grpc"])

        annotations = pod["metadata"]["annotations"]
        self.assertEqual(annotations["prometheus.io/port"], str(metrics_port), where)
        self.assertEqual(annotations["prometheus.io/path"], "/metrics", where)

        # Labels and selectors.
        selector = deployment["spec"]["selector"]["matchLabels"]
        pod_labels = pod["metadata"]["labels"]
        self.assertLessEqual(selector.items(), pod_labels.items(), where)
        spread = pod["spec"]["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"]
        self.assertEqual(spread, selector, where)
        for service in kinds["Service"]:
            self.assertEqual(service["spec"]["selector"], selector,
                             f"{where} {service['metadata']['name']}")
            for port in service["spec"]["ports"]:
                self.assertIn(port["targetPort"], ports, where)
                self.assertEqual(port["port"], ports[port["targetPort"]], where)
        for pdb in kinds["PodDisruptionBudget"]:
            self.assertEqual(pdb["spec"]["selector"]["matchLabels"], selector, where)
        for hpa in kinds.get("HorizontalPodAutoscaler", []):
            target = hpa["spec"]["scaleTargetRef"]
            self.assertEqual((target["kind"], target["name"]),
                             ("Deployment", deployment["metadata"]["name"]), where)
            self.assertNotIn("replicas", deployment["spec"], f"{where}: the HPA owns replicas")
        if "HorizontalPodAutoscaler" not in kinds:
            self.assertIn("replicas", deployment["spec"], where)

        services = {s["metadata"]["name"]: s for s in kinds["Service"]}
        name = deployment["metadata"]["name"]
        # /metrics only on the headless metrics Service, never on those clients use.
        self.assertEqual(set(services), {name, name + "-headless", name + "-metrics"}, where)
        for service_name, service in services.items():
            exposed = {port["targetPort"] for port in service["spec"]["ports"]}
            expected = {"metrics"} if service_name == name + "-metrics" else {"grpc"}
            self.assertEqual(exposed, expected, f"{where} {service_name}")
        self.assertEqual(services[name + "-metrics"]["spec"]["clusterIP"], "None", where)
        self.check_network_policy(kinds, selector, where)
        self.assertEqual(services[name + "-headless"]["spec"]["clusterIP"], "None", where)
        self.assertNotIn("sessionAffinity", services[name + "-headless"]["spec"], where)
        if postgres:
            # Every replica serves every call: nothing pins a client to one pod.
            self.assertNotIn("sessionAffinity", services[name]["spec"], where)
        else:
            self.assertEqual(services[name]["spec"]["sessionAffinity"], "ClientIP", where)

        # Shutdown: the pod's grace outlasts the server's.
        self.assertGreater(pod["spec"]["terminationGracePeriodSeconds"],
                           seconds_of(flags["shutdown_grace"]), where)
        # Non-root, as the image's user; the data directory is a mounted volume.
        self.assertTrue(pod["spec"]["securityContext"]["runAsNonRoot"], where)
        self.assertEqual(str(pod["spec"]["securityContext"]["runAsUser"]),
                         self.docker.runtime_last("USER").split(":")[0], where)
        self.assertLessEqual(set(mounts.values()), set(volumes), where)
        self.assertEqual(volumes[mounts["/tmp"]]["emptyDir"]["sizeLimit"], "256Mi", where)
        env = {e["name"]: e for e in container.get("env", [])}
        if postgres:
            self.check_postgres(flags, env, mounts, volumes, postgres, where)
        else:
            # SQLite in --data_dir, a mounted emptyDir; no database.
            self.assertNotIn("postgres_url", flags, where)
            self.assertEqual(env, {}, where)
            self.assertIn(flags["data_dir"], mounts, where)
            self.assertIn("emptyDir", volumes[mounts[flags["data_dir"]]], where)
            self.assertNotIn(POSTGRES_CA_DIR, mounts, where)
        return flags, mounts

    def check_credentials(self, flags, mounts, volumes, where):
        """TLS and tokens from files of mounted Secrets, readable by fsGroup only."""
        for flag in ("tls_cert", "tls_key", "auth_tokens_file"):
            self.assertIn(flag, flags, f"{where}: secure by default needs --{flag}")
        self.assertNotIn(ALLOW_OPEN_FLAG, flags, where)
        for flag in CREDENTIAL_FLAGS:
            if flag in flags:
                self.check_secret_file(flags[flag], mounts, volumes, f"{where} --{flag}")

    def check_secret_file(self, path, mounts, volumes, where):
        directory, _, name = path.rpartition("/")
        self.assertIn(directory, mounts, where)
        secret = volumes[mounts[directory]]["secret"]
        self.assertEqual(secret["defaultMode"], 0o440, where)
        items = [item["path"] for item in secret.get("items", [])]
        if items:
            self.assertIn(name, items, where)

    def check_cli_probes(self, container, grpc_port, flags, where):
        """Startup and readiness run the image's CLI against localhost with TLS and a token;
        liveness only checks that the port accepts connections."""
        self.assertEqual(container["livenessProbe"]["tcpSocket"], {"port": "grpc"}, where)
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        command = container["readinessProbe"]["exec"]["command"]
        self.assertEqual(container["startupProbe"]["exec"]["command"], command, where)
        self.assertEqual(command[:3], [CLI_PATH, "sessions", "list"], where)
        self.assertEqual(flag_value(command, "server"), f"localhost:{grpc_port}", where)
        ca = flag_value(command, "tls-ca")
        self.assertEqual(ca.rpartition("/")[0], flags["tls_cert"].rpartition("/")[0], where)
        if "auth_tokens_file" in flags:
            token = flag_value(command, "token-file")
            self.assertEqual(token.rpartition("/")[0], flags["auth_tokens_file"].rpartition("/")[0],
                             where)
        if "tls_client_ca" in flags:
            self.assertEqual(flag_value(command, "tls-cert"), flags["tls_cert"], where)
            self.assertEqual(flag_value(command, "tls-key"), flags["tls_key"], where)
        for path in (p for p in command if p.startswith("--") and "=/" in p):
            self.assertIn(path.split("=", 1)[1].rpartition("/")[0], mounts, f"{where} {path}")

    def check_network_policy(self, kinds, selector, where):
        """gRPC open, /metrics from Prometheus' pods only; out only DNS and PostgreSQL."""
        policies = kinds.get("NetworkPolicy", [])
        self.assertEqual(len(policies), 1, where)
        spec = policies[0]["spec"]
        self.assertEqual(spec["podSelector"]["matchLabels"], selector, where)
        self.assertEqual(set(spec["policyTypes"]), {"Ingress", "Egress"}, where)
        rules = {rule["ports"][0]["port"]: rule for rule in spec["ingress"]}
        self.assertEqual(set(rules), {"grpc", "metrics"}, where)
        self.assertNotIn("from", rules["grpc"], where)
        sources = rules["metrics"]["from"]
        self.assertTrue(sources and all(s["podSelector"]["matchLabels"] for s in sources), where)
        egress_ports = {p["port"] for rule in spec["egress"] for p in rule["ports"]}
        self.assertEqual(egress_ports, {53, 5432}, where)

    def check_postgres(self, flags, env, mounts, volumes, postgres, where):
        secret_name, secret_key = postgres
        for flag in ("postgres_url", "postgres_pool_size"):
            self.assertIn(flag, self.flags, f"the server has no --{flag}")
            self.assertIn(flag, flags, where)
        self.assertGreaterEqual(int(flags["postgres_pool_size"]), 1, where)
        # The URL, password included, only ever in the Secret: the flag names an env var
        # that a secretKeyRef fills.
        variable = env_reference(flags["postgres_url"])
        self.assertIn(variable, env, f"{where}: --postgres_url names ${variable}, not in env")
        self.assertNotIn("value", env[variable], where)
        self.assertEqual(env[variable]["valueFrom"]["secretKeyRef"],
                         {"name": secret_name, "key": secret_key}, where)
        self.assertEqual(env["PGPASSWORD"]["valueFrom"]["secretKeyRef"],
                         {"name": secret_name, "key": POSTGRES_PASSWORD_KEY, "optional": True},
                         where)
        self.assertEqual(set(env), {variable, "PGPASSWORD"}, where)
        # --data_dir is not used: no flag, no volume for it.
        self.assertNotIn("data_dir", flags, where)
        self.assertNotIn("/var/lib/wasserwarp", mounts, where)
        self.assertNotIn("data", volumes, where)
        # The database's CA for sslrootcert, from the same Secret, optional.
        self.assertIn(POSTGRES_CA_DIR, mounts, where)
        ca = volumes[mounts[POSTGRES_CA_DIR]]["secret"]
        self.assertEqual(ca["secretName"], secret_name, where)
        self.assertIs(ca["optional"], True, where)
        self.assertEqual([item["path"] for item in ca["items"]], ["ca.crt"], where)

    def test_server_starts_with_the_deployment_flags_and_logs_them_as_json(self):
        deployment = by_kind(self.kubernetes)["Deployment"][0]
        args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
        deployed = flag_values(args)
        # No PostgreSQL here, and the server refuses to start without its database: the
        # Secret's URL gives way to a temporary --data_dir (SQLite), every other flag as
        # deployed (--postgres_pool_size included, unused then but parsed and logged).
        env_reference(deployed.pop("postgres_url"))
        self.assertNotIn("data_dir", deployed)
        with tempfile.TemporaryDirectory() as data_dir:
            # The Secrets' files, made as deploy/README.md makes them.
            credentials = Path(data_dir) / "credentials"
            subprocess.run(["sh", str(self.deploy / "make-credentials.sh"), str(credentials)],
                           check=True, capture_output=True)
            local = {"listen": "127.0.0.1:0", "metrics_listen": "127.0.0.1:0",
                     "data_dir": str(Path(data_dir) / "data")}
            for flag in CREDENTIAL_FLAGS:
                if flag in deployed:
                    directory = Path(deployed[flag]).parent.name
                    local[flag] = str(credentials / directory / Path(deployed[flag]).name)
            flags = {**deployed, **local}
            server = subprocess.Popen([ARGS.server] + [f"--{k}={v}" for k, v in flags.items()],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            first = server.stdout.readline()
            server.send_signal(signal.SIGTERM)
            _, log = server.communicate(timeout=60)
        self.assertTrue(first.startswith("listening on "), first + log)
        self.assertEqual(server.returncode, 0, log)
        self.assertEqual(flags["log_format"], "json")
        lines = [json.loads(line) for line in log.splitlines()]
        self.assertTrue(all(line.keys() >= {"time", "level", "message"} for line in lines))
        startup = [line["message"] for line in lines
                   if line["message"].startswith("configuration: ")]
        self.assertEqual(len(startup), 1, "the configuration is logged once")
        logged = dict(item.split("=", 1) for item in startup[0].split()[1:])
        for name, value in flags.items():
            if name not in ("log_format", "log_level"):
                self.assertEqual(logged.get(name), value, f"--{name}")
        # Every server setting is in the line, not only those the Deployment sets.
        self.assertLessEqual(self.flags - {"log_format", "log_level"}, logged.keys())

    def test_every_yaml_file_parses(self):
        files = [p for p in self.deploy.rglob("*") if p.suffix in (".yaml", ".yml")
                 and "templates" not in p.parts]
        self.assertGreaterEqual(len(files), 8)
        for path in files:
            with self.subTest(path=str(path.relative_to(self.repo))):
                documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
                self.assertTrue(documents)

    def test_dockerfile(self):
        docker = self.docker
        build_runs = " ".join(rest for keyword, rest in docker.build if keyword == "RUN")
        self.assertIn("make build", build_runs, "the image builds as the Makefile does")
        self.assertTrue(docker.runtime[0][1].startswith("debian:${DEBIAN_RELEASE}-slim"))
        user = docker.runtime_last("USER")
        self.assertIsNotNone(user)
        self.assertNotIn(user.split(":")[0], ("0", "root"))
        for key in ("title", "description", "version", "revision", "created"):
            self.assertIn(f"org.opencontainers.image.{key}", docker.label_keys())
        entrypoint = flag_values(docker.entrypoint()[1:] + docker.cmd())
        for name in entrypoint:
            self.assertIn(name, self.flags)
        self.assertEqual({port_of(entrypoint["listen"]), port_of(entrypoint["metrics_listen"])},
                         docker.exposed_ports())
        self.assertTrue(entrypoint["listen"].startswith("0.0.0.0:"))
        # Never open: TLS and tokens from files the entry point expects.
        for flag in ("tls_cert", "tls_key", "auth_tokens_file"):
            self.assertTrue(entrypoint[flag].startswith("/etc/wasserwarp/"), flag)
        self.assertNotIn(ALLOW_OPEN_FLAG, entrypoint)
        # The build stage builds what the image ships and no tests; the CLI is there for the probes.
        self.assertIn("make build-image-binaries", build_runs)
        self.assertIn(f"/out{CLI_PATH}", build_runs)
        self.assertEqual(entrypoint["data_dir"], docker.runtime_last("WORKDIR"))
        self.assertIn(entrypoint["data_dir"], docker.runtime_last("VOLUME"))

    def test_runtime_image_installs_the_libraries_the_server_and_cli_link(self):
        for tool in ("ldd", "dpkg-query", "dpkg", "apt-cache"):
            if shutil.which(tool) is None:
                self.skipTest(f"{tool} is not installed")
        ldd = "".join(subprocess.run(["ldd", binary], capture_output=True, text=True,
                                     check=True).stdout for binary in (ARGS.server, ARGS.cli))
        if re.search(r"/lib(asan|ubsan|tsan)\.so", ldd):
            self.skipTest("a sanitizer build (make test-asan) links a runtime no image ships")
        # dpkg knows each library by the path it installed, before /lib moved under /usr.
        libraries = sorted({str(Path(path).resolve()) for path in re.findall(r"=> (/\S+)", ldd)})
        candidates = libraries + [path.replace("/usr/lib/", "/lib/", 1) for path in libraries]
        owners = subprocess.run(["dpkg", "-S"] + candidates, capture_output=True, text=True,
                                check=False).stdout
        needed, held = set(), set()
        for line in owners.splitlines():
            package, _, path = line.partition(": ")
            needed.add(package.split(":")[0])
            held.add(path.replace("/lib/", "/usr/lib/", 1) if path.startswith("/lib/") else path)
        self.assertEqual(set(libraries) - held, set(), "libraries no Debian package holds")
        installed = self.docker.runtime_packages()
        closure = subprocess.run(
            ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
             "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + sorted(installed),
            capture_output=True, text=True, check=True).stdout
        provided = set(installed) | {line.strip() for line in closure.splitlines()
                                     if line and not line.startswith(" ")}
        provided |= {line.split(":", 1)[1].strip() for line in closure.splitlines()
                     if "Depends:" in line}
        # In debian:bookworm-slim already.
        provided |= {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
        self.assertLessEqual(needed, provided,
                             f"the runtime stage lacks {sorted(needed - provided)}")

    def test_kubernetes_manifests(self):
        self.check_objects(self.kubernetes, "deploy/kubernetes")
        directory = self.deploy / "kubernetes"
        kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
        listed = set(kustomization["resources"])
        present = {p.name for p in directory.glob("*.yaml")} - {"kustomization.yaml"}
        self.assertEqual(listed, present)

    def test_chart_defaults_render_the_kubernetes_manifests(self):
        rendered = self.chart.render()
        self.check_objects(rendered, "helm defaults")
        key = lambda obj: (obj["kind"], obj["metadata"]["name"])
        self.assertEqual(sorted(map(key, rendered)), sorted(map(key, self.kubernetes)))
        expected = {key(obj): obj for obj in self.kubernetes}
        for obj in rendered:
            with self.subTest(object=key(obj)):
                self.assertEqual(obj, expected[key(obj)])

    def test_chart_with_mutual_tls_and_fixed_replicas(self):
        rendered = self.chart.render({
            "tls": {"secretName": "bench-tls", "clientCA": True},
            "auth": {"secretName": "bench-tokens", "key": "tokens.txt", "probeKey": "probe.txt"},
            "autoscaling": {"enabled": False},
            "replicaCount": 3,
            "ports": {"grpc": 443, "metrics": 9100},
            "server": {"extraArgs": ["--session_idle_ttl=720h"]},
        }, release="bench")
        kinds = by_kind(rendered)
        self.assertNotIn("HorizontalPodAutoscaler", kinds)
        deployment = kinds["Deployment"][0]
        self.assertEqual(deployment["metadata"]["name"], "bench")
        self.assertEqual(deployment["spec"]["replicas"], 3)
        pod = deployment["spec"]["template"]["spec"]
        container = pod["containers"][0]
        # The Dockerfile exposes the default ports only; compare the rest by hand.
        flags = flag_values(container["args"])
        for name in flags:
            self.assertIn(name, self.flags)
        self.assertEqual(flags["session_idle_ttl"], "720h")
        self.assertEqual((port_of(flags["listen"]), port_of(flags["metrics_listen"])), (443, 9100))
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        self.check_credentials(flags, mounts, volumes, "helm mutual TLS")
        self.check_cli_probes(container, 443, flags, "helm mutual TLS")
        self.assertEqual(flags["tls_client_ca"], "/etc/wasserwarp/tls/ca.crt")
        tls = volumes[mounts["/etc/wasserwarp/tls"]]["secret"]
        self.assertEqual(tls["secretName"], "bench-tls")
        auth = volumes[mounts["/etc/wasserwarp/auth"]]["secret"]
        self.assertEqual(auth["secretName"], "bench-tokens")
        self.assertEqual(auth["items"], [{"key": "tokens.txt", "path": "tokens"},
                                         {"key": "probe.txt", "path": "probe-token"}])
        services = {s["metadata"]["name"]: s for s in kinds["Service"]}
        self.assertEqual(set(services), {"bench", "bench-headless", "bench-metrics"})
        self.assertEqual(services["bench"]["spec"]["ports"], [
            {"name": "grpc", "port": 443, "targetPort": "grpc", "protocol": "TCP"}])
        self.assertEqual(services["bench-metrics"]["spec"]["ports"][0]["port"], 9100)

    def test_chart_without_postgres_renders_the_sqlite_layout(self):
        rendered = self.chart.render({"postgres": {"secretName": ""}, "replicaCount": 1,
                                      "autoscaling": {"enabled": False}})
        self.check_objects(rendered, "helm postgres.secretName=''", postgres=None)
        kinds = by_kind(rendered)
        self.assertNotIn("HorizontalPodAutoscaler", kinds)
        deployment = kinds["Deployment"][0]
        self.assertEqual(deployment["spec"]["replicas"], 1)
        pod = deployment["spec"]["template"]["spec"]
        container = pod["containers"][0]
        flags = flag_values(container["args"])
        self.assertEqual(flags["data_dir"], "/var/lib/wasserwarp")
        self.assertNotIn("postgres_pool_size", flags)
        self.assertNotIn("env", container)
        volumes = {v["name"]: v for v in pod["volumes"]}
        self.assertEqual(set(volumes), {"data", "tmp", "tls", "auth"})
        self.assertEqual(volumes["data"]["emptyDir"], {"sizeLimit": "3Gi"})
        service = next(s for s in kinds["Service"] if s["metadata"]["name"] == "wasserwarp")
        self.assertEqual(service["spec"]["sessionAffinityConfig"],
                         {"clientIP": {"timeoutSeconds": 86400}})
        # Otherwise as the defaults: the same objects but for these differences.
        defaults = {(o["kind"], o["metadata"]["name"]) for o in self.chart.render()}
        self.assertEqual({(o["kind"], o["metadata"]["name"]) for o in rendered},
                         defaults - {("HorizontalPodAutoscaler", "wasserwarp")})

    def test_chart_postgres_values(self):
        rendered = self.chart.render({"postgres": {"secretName": "bench-db", "key": "dsn",
                                                   "caKey": "root.pem", "poolSize": 4}})
        self.check_objects(rendered, "helm postgres values", postgres=("bench-db", "dsn"))
        pod = by_kind(rendered)["Deployment"][0]["spec"]["template"]["spec"]
        flags = flag_values(pod["containers"][0]["args"])
        self.assertEqual(flags["postgres_pool_size"], "4")
        ca = next(v for v in pod["volumes"] if v["name"] == "postgres-ca")["secret"]
        self.assertEqual(ca["items"], [{"key": "root.pem", "path": "ca.crt"}])

    def test_every_chart_server_value_sets_a_server_flag(self):
        # Each server and postgres value, changed alone, changes exactly one flag, which the
        # server has: no value is dropped by the template or passed under a wrong name.
        not_flags = {"extraArgs", "secretName", "key", "passwordKey", "caKey"}
        base = flag_values(by_kind(self.chart.render())["Deployment"][0]["spec"]["template"]
                           ["spec"]["containers"][0]["args"])
        for section in ("server", "postgres"):
            for key in sorted(set(self.chart.defaults[section]) - not_flags):
                with self.subTest(value=f"{section}.{key}"):
                    marker = f"marker-{key}"
                    rendered = self.chart.render({section: {key: marker}})
                    args = by_kind(rendered)["Deployment"][0]["spec"]["template"]["spec"][
                        "containers"][0]["args"]
                    changed = {name for name, value in flag_values(args).items()
                               if base.get(name) != value}
                    self.assertEqual(len(changed), 1, changed)
                    (flag,) = changed
                    self.assertIn(flag, self.flags)
                    self.assertEqual(flag_values(args)[flag], marker)

    def test_chart_keeps_the_server_defaults_of_the_call_pool_and_quotas(self):
        # These values are the server's own defaults, spelled out for platform teams to
        # change; the --help text is where the defaults are.
        defaults = server_flag_defaults()
        flags = flag_values(by_kind(self.kubernetes)["Deployment"][0]["spec"]["template"]
                            ["spec"]["containers"][0]["args"])
        for name in ("call_threads", "max_queued_calls", "max_sessions",
                     "max_sessions_per_principal", "max_bytes_per_principal",
                     "max_queued_jobs_per_principal", "max_running_jobs_per_principal",
                     "max_attempts", "max_watch_streams", "max_watch_streams_per_principal",
                     "session_idle_ttl", "max_session_ttl", "credentials_refresh_interval",
                     "postgres_statement_timeout", "postgres_lock_timeout",
                     "postgres_idle_in_transaction_timeout"):
            with self.subTest(flag=name):
                self.assertEqual(flags[name], defaults[name])

    def test_chart_open_only_when_asked_and_then_says_so(self):
        # Without TLS: native gRPC probes, the token still required.
        rendered = self.chart.render({"tls": {"enabled": False}})
        container = by_kind(rendered)["Deployment"][0]["spec"]["template"]["spec"]["containers"][0]
        flags = flag_values(container["args"])
        self.assertEqual(set(CREDENTIAL_FLAGS) & set(flags), {"auth_tokens_file"})
        self.assertEqual(container["readinessProbe"]["grpc"]["service"], HEALTH_SERVICE)
        # Neither TLS nor tokens: every caller is one principal, which the server accepts on a
        # non-loopback address only when told so.
        rendered = self.chart.render({"tls": {"enabled": False}, "auth": {"enabled": False}})
        pod = by_kind(rendered)["Deployment"][0]["spec"]["template"]["spec"]
        flags = flag_values([a if "=" in a else a + "=" for a in pod["containers"][0]["args"]])
        self.assertEqual(set(CREDENTIAL_FLAGS) & set(flags), set())
        self.assertIn(ALLOW_OPEN_FLAG, flags)
        self.assertLessEqual(set(flags) - {ALLOW_OPEN_FLAG}, self.flags)
        self.assertEqual({v["name"] for v in pod["volumes"]}, {"tmp", "postgres-ca"})
        # Tokens alone, or client certificates alone, are access control enough.
        for values in ({"tls": {"enabled": False}}, {"auth": {"enabled": False},
                                                      "tls": {"clientCA": True}}):
            container = by_kind(self.chart.render(values))["Deployment"][0]["spec"]["template"][
                "spec"]["containers"][0]
            self.assertNotIn(f"--{ALLOW_OPEN_FLAG}", container["args"], values)

    def test_chart_network_policy_values(self):
        rendered = self.chart.render({"networkPolicy": {"postgresPort": 6432, "prometheus": {
            "namespaceSelector": {"matchLabels": {"name": "monitoring"}},
            "podLabels": {"app": "prom"}}}})
        policy = by_kind(rendered)["NetworkPolicy"][0]["spec"]
        metrics = next(r for r in policy["ingress"] if r["ports"][0]["port"] == "metrics")
        # Helm merges maps of values: the default label stays unless set to null.
        self.assertEqual(metrics["from"], [{"namespaceSelector": {"matchLabels": {
            "name": "monitoring"}}, "podSelector": {"matchLabels": {
                "app": "prom", "app.kubernetes.io/name": "prometheus"}}}])
        self.assertIn({"port": 6432, "protocol": "TCP"}, policy["egress"][1]["ports"])
        rendered = self.chart.render({"networkPolicy": {"enabled": False}})
        self.assertNotIn("NetworkPolicy", by_kind(rendered))

    def test_compose_and_prometheus(self):
        compose = yaml.safe_load((self.deploy / "docker-compose.yml").read_text())
        services = compose["services"]
        named_volumes = set(compose.get("volumes") or {})

        # PostgreSQL for the local demo, its data in a named volume, healthy once it accepts
        # connections.
        postgres = services["postgres"]
        self.assertEqual(postgres["image"], "postgres:15")
        database = postgres["environment"]
        for key in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"):
            self.assertTrue(database.get(key), key)
        data = [v.split(":") for v in postgres["volumes"]]
        self.assertIn("/var/lib/postgresql/data", [path for _, path, *_ in data])
        self.assertTrue({name for name, *_ in data} <= named_volumes, "named volumes")
        self.assertIn("pg_isready", " ".join(postgres["healthcheck"]["test"]))
        self.assertNotIn("ports", postgres, "the database stays on the Compose network")

        # Two replicas on that database, each on its own host port, gRPC only; secure as the
        # Deployment: TLS and tokens, non-root, read-only, probed with the image's CLI.
        replicas = {"wasserwarp-1": 50051, "wasserwarp-2": 50052}
        self.assertLessEqual(replicas.keys(), services.keys())
        self.assertNotIn("wasserwarp", services)
        deployment = by_kind(self.kubernetes)["Deployment"][0]["spec"]["template"]["spec"]
        probe = deployment["containers"][0]["readinessProbe"]["exec"]["command"]
        metrics_targets = set()
        host_ports = []
        for name, grpc_host in replicas.items():
            with self.subTest(service=name):
                server = services[name]
                self.assertEqual(server["build"]["dockerfile"], "Dockerfile")
                self.assertTrue(
                    (self.deploy / server["build"]["context"] / "Dockerfile").is_file())
                flags = flag_values(self.docker.entrypoint()[1:] + server["command"])
                for flag in flags:
                    self.assertIn(flag, self.flags)
                published = dict(tuple(map(int, compose_defaults(p).split(":")[-2:]))
                                 for p in server["ports"])
                host_ports += list(published)
                self.assertEqual(published, {grpc_host: port_of(flags["listen"])},
                                 "/metrics stays on the Compose network")
                self.assertEqual(server["user"], self.docker.runtime_last("USER"))
                self.assertIs(server["read_only"], True)
                self.assertEqual(server["cap_drop"], ["ALL"])
                self.assertEqual(server["healthcheck"]["test"], ["CMD"] + probe)
                mounted = {compose_defaults(v).split(":")[1] for v in server["volumes"]}
                for flag in ("tls_cert", "tls_key", "auth_tokens_file"):
                    self.assertIn(flags[flag].rpartition("/")[0], mounted, flag)
                self.assertTrue(all(v.endswith(":ro") for v in server["volumes"]),
                                "credentials only, read-only: state lives in PostgreSQL")
                url = urllib.parse.urlsplit(flags["postgres_url"])
                self.assertEqual(url.scheme, "postgresql")
                self.assertEqual((url.hostname, url.port), ("postgres", 5432))
                # The password from the environment (libpq's PGPASSWORD), not the command line.
                self.assertIsNone(url.password)
                self.assertEqual((url.username, server["environment"]["PGPASSWORD"], url.path),
                                 (database["POSTGRES_USER"], database["POSTGRES_PASSWORD"],
                                  "/" + database["POSTGRES_DB"]))
                self.assertGreaterEqual(int(flags["postgres_pool_size"]), 1)
                self.assertEqual(server["depends_on"]["postgres"]["condition"],
                                 "service_healthy")
                self.assertGreater(int(server["stop_grace_period"].rstrip("s")),
                                   seconds_of(flags["shutdown_grace"]))
                metrics_targets.add(f"{name}:{port_of(flags['metrics_listen'])}")
        self.assertEqual(len(host_ports), len(set(host_ports)), "host ports collide")

        # Prometheus scrapes both replicas, on the Compose network, and answers on loopback.
        prometheus = services["prometheus"]
        self.assertEqual([compose_defaults(p) for p in prometheus["ports"]],
                         ["127.0.0.1:9090:9090"])
        self.assertLessEqual(replicas.keys(), set(prometheus["depends_on"]))
        config_mount = next(v for v in prometheus["volumes"] if v.endswith("prometheus.yml:ro"))
        config = yaml.safe_load((self.deploy / config_mount.split(":")[0]).read_text())
        targets = [t for job in config["scrape_configs"] for c in job["static_configs"]
                   for t in c["targets"]]
        self.assertEqual(sorted(targets), sorted(metrics_targets))
        self.assertEqual(config["scrape_configs"][0]["metrics_path"], "/metrics")


class RendererTest(unittest.TestCase):
    """The renderer itself, on the constructs the chart uses."""

    def render(self, source, values):
        chart = Chart.__new__(Chart)
        chart.defines = {}
        nodes = chart.parse(source, "test")
        return chart.render_nodes(nodes, {"Values": values})

    def test_trim_markers_if_else_range_and_functions(self):
        source = ('{{- define "x" -}}\nname: {{ .Values.n }}\n{{- end }}\n'
                  "a:\n  {{- include \"x\" . | nindent 2 }}\n"
                  "{{- if .Values.on }}\nb: then\n{{- else }}\nb: else\n{{- end }}\n"
                  "c:\n{{- range .Values.list }}\n  - {{ . | quote }}\n{{- end }}\n"
                  "d: {{ .Values.missing | default \"dflt\" }}\n"
                  "e:\n  {{- toYaml .Values.map | nindent 2 }}\n")
        text = self.render(source, {"n": "w", "on": False, "list": ["p", "q"],
                                    "map": {"k": 1, "j": "v"}})
        self.assertEqual(yaml.safe_load(text), {"a": {"name": "w"}, "b": "else", "c": ["p", "q"],
                                                "d": "dflt", "e": {"j": "v", "k": 1}})

    def test_numbers_print_as_helm_prints_float64(self):
        self.assertEqual(go_number(50051), "50051")
        self.assertEqual(go_number(999999), "999999")
        self.assertEqual(go_number(1000000), "1e+06")
        self.assertEqual(go_number(2147483648), "2.147483648e+09")
        self.assertEqual(go_number(0.5), "0.5")
        self.assertEqual(go_text(None), "<no value>")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
