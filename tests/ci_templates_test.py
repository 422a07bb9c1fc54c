#!/usr/bin/env python3
"""Keeps the pipeline templates of examples/ci/ from rotting: each is read as its CI system
reads it, and its shell steps, taken from the file, run against a real wasserwarp-server.

- examples/ci/gitlab-ci.yml: parsed with PyYAML; its stages, the job's script and its artifacts
  (`when: always`, `reports: junit:` and `metrics:`). The job's before_script and script run as
  one POSIX sh -e script, with the file's `variables:` and GitLab's predefined variables set.
- examples/ci/github-actions.yml: parsed with PyYAML; its triggers, the job's steps, an
  actions/upload-artifact step and a JUnit publishing step with `if: always()`. Its `run:` steps
  run in order as the runner runs them (bash -e, `if: always()` after a failure), with the env:
  blocks of the workflow, the job and the step, and every ${{ expression }} replaced from a
  table of test values: an expression the table lacks fails the test.
- examples/ci/Jenkinsfile: its sh '''...''' blocks extracted (Groovy's escapes applied, as
  Jenkins would pass them), its environment {} block read, and post { always { } } checked for
  the junit and archiveArtifacts steps; the blocks run with /bin/sh -xe, as the sh step does.
- Every shell step passes shellcheck, where it is installed (skipped otherwise).

The server runs on a free loopback port with TLS (certificates made here by openssl), access
tokens and --http_public_url; the CLI is on PATH as `wasserwarp`. Each template runs four
times in a scratch workspace holding the example generator's runs: variant A (PASS: exit 0, the
JUnit XML read by junitparser without failures, the OpenMetrics file ending in `# EOF`, the
HTML and JSON reports, the labels from the CI variables, the `record:` link, also in the JUnit
file), variant B (FAIL: exit 1, a JUnit failure), simulated runs with other channels than the
measured ones and a version label over 256 characters (bad input: exit 2, a JUnit error).
Every subprocess has a timeout.

Usage: ci_templates_test.py --repo DIR --cli PATH --server PATH --example-data PATH
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml
from junitparser import Error, Failure, JUnitXml, TestSuite

# The one way the Python tests start a server (tests/python/harness.py).
sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
import harness  # noqa: E402

ARGS = None
REPO = None  # Path of --repo

JUNIT = "wasserwarp-junit.xml"
METRICS = "wasserwarp-metrics.txt"
REPORT = "wasserwarp-report.html"
JSON_REPORT = "wasserwarp-report.json"
# Where the templates look for the runs by default.
REF_DIR = "bench/measurements"
SIM_DIR = "simulation/results"
TOKEN = "ci-token-7f3a9c"
PUBLIC_URL = "https://wasserwarp.test"
STEP_TIMEOUT = 180
# The CLI's exit statuses (README.md, "The CLI").
PASS, FAIL, BAD_INPUT = 0, 1, 2


def run(command, timeout=60, **kwargs):
    if "input" not in kwargs:
        kwargs["stdin"] = subprocess.DEVNULL
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                          **kwargs)


# --- The server --------------------------------------------------------------------------


class Server(harness.Server):
    """A wasserwarp-server on a free loopback port, with TLS and access tokens."""

    def __init__(self, scratch):
        certs = scratch / "certs"
        certs.mkdir()
        (certs / "server.ext").write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                                          "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
        key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for command in (["openssl", "req", "-x509", *key, "-days", "1", "-subj", "/CN=ci test CA",
                         "-keyout", "ca.key", "-out", "ca.pem"],
                        ["openssl", "req", *key, "-subj", "/CN=127.0.0.1", "-keyout",
                         "server.key", "-out", "server.csr"],
                        ["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey",
                         "ca.key", "-CAcreateserial", "-days", "1", "-extfile", "server.ext",
                         "-out", "server.pem"]):
            made = run(command, cwd=certs)
            if made.returncode != 0:
                raise RuntimeError(f"{' '.join(command)}: {made.stderr}")
        self.ca = certs / "ca.pem"
        tokens = scratch / "tokens"
        tokens.write_text(f"pipeline:{TOKEN}\n")
        super().__init__(ARGS.server, scratch / "server.log",
                         flags=("--tls_cert", str(certs / "server.pem"), "--tls_key",
                                str(certs / "server.key"), "--auth_tokens_file", str(tokens),
                                "--http_public_url", PUBLIC_URL))


# --- Reading the templates ---------------------------------------------------------------


def github_on(workflow):
    # YAML 1.1, which PyYAML reads, takes a bare `on` for true.
    return workflow.get("on", workflow.get(True))


def gitlab_job(config):
    """(name, job) of the one job: a mapping with a script, not a hidden .template."""
    jobs = {name: job for name, job in config.items()
            if isinstance(job, dict) and "script" in job and not name.startswith(".")}
    if len(jobs) != 1:
        raise AssertionError(f"expected one job, got {sorted(jobs)}")
    return next(iter(jobs.items()))


def gitlab_script(job):
    """What the runner runs: before_script, then script, in one shell."""
    return "\n".join(job.get("before_script", []) + job["script"])


def template_scripts():
    """(step, shell dialect, script) of every shell step of the templates."""
    _, job = gitlab_job(yaml.safe_load((REPO / "examples/ci/gitlab-ci.yml").read_text()))
    scripts = [("gitlab script", "sh", gitlab_script(job))]
    workflow = yaml.safe_load((REPO / "examples/ci/github-actions.yml").read_text())
    (_, job), = workflow["jobs"].items()
    scripts += [(f"github step {step.get('name', index)!r}", "bash", step["run"])
                for index, step in enumerate(job["steps"]) if "run" in step]
    tokens = groovy_tokens((REPO / "examples/ci/Jenkinsfile").read_text())
    scripts += [(f"jenkins sh {index}", "sh", script)
                for index, script in enumerate(jenkins_sh_blocks(groovy_block(tokens, "stages")))]
    return scripts


GROOVY_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", "\\": "\\",
                  "'": "'", '"': '"', "$": "$"}


def groovy_unescape(body):
    """The string Groovy makes of a quoted literal's body: its escapes, and a backslash before
    a line break continuing the line (which Groovy, not the shell, removes)."""
    out, i = [], 0
    while i < len(body):
        if body[i] != "\\":
            out.append(body[i])
            i += 1
            continue
        following = body[i + 1]
        if following == "\n":
            i += 2
        elif following in GROOVY_ESCAPES:
            out.append(GROOVY_ESCAPES[following])
            i += 2
        elif following == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        else:
            raise AssertionError(f"Groovy refuses the escape \\{following} in {body[:60]!r}")
    return "".join(out)


def groovy_tokens(text):
    """(kind, value) of a Groovy file, comments left out: 'word', 'punct', and 'string' with
    the value (quote, body) as written."""
    tokens, i = [], 0
    while i < len(text):
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif text[i].isspace():
            i += 1
        elif text[i] in "'\"":
            quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
            j = i + len(quote)
            while not text.startswith(quote, j):
                if len(quote) == 1 and text[j] == "\n":
                    raise AssertionError(f"unterminated string at offset {i}")
                j += 2 if text[j] == "\\" else 1
            tokens.append(("string", (quote, text[i + len(quote):j])))
            i = j + len(quote)
        else:
            word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i:])
            if word:
                tokens.append(("word", word.group()))
                i += len(word.group())
            else:
                tokens.append(("punct", text[i]))
                i += 1
    return tokens


def groovy_block(tokens, *path):
    """The tokens inside `path[0] { ... path[1] { ... } }`, e.g. ('post', 'always')."""
    for name in path:
        for k in range(len(tokens) - 1):
            if tokens[k] == ("word", name) and tokens[k + 1] == ("punct", "{"):
                break
        else:
            raise AssertionError(f"no block `{name} {{` in {' '.join(path)}")
        depth, end = 0, k + 1
        for end in range(k + 1, len(tokens)):
            if tokens[end] == ("punct", "{"):
                depth += 1
            elif tokens[end] == ("punct", "}"):
                depth -= 1
                if depth == 0:
                    break
        tokens = tokens[k + 2:end]
    return tokens


def groovy_string(token):
    kind, value = token
    if kind != "string":
        raise AssertionError(f"expected a string literal, got {value!r}")
    quote, body = value
    if quote.startswith('"') and re.search(r"(?<!\\)\$", body):
        # A GString: Groovy would put the values in, secrets included, before the shell runs.
        raise AssertionError(f'use \'\'\' rather than """ with $ in an sh step: {body[:60]!r}')
    return groovy_unescape(body)


def jenkins_sh_blocks(tokens):
    """The scripts of the sh steps, in order: sh followed by a ''' or \"\"\" string."""
    scripts = []
    for k, token in enumerate(tokens):
        if token == ("word", "sh"):
            if tokens[k + 1][0] != "string":
                raise AssertionError("an sh step this test cannot read: sh followed by "
                                     f"{tokens[k + 1][1]!r}, not a string literal")
            scripts.append(groovy_string(tokens[k + 1]))
    return scripts


def jenkins_environment(tokens, credentials):
    """environment { NAME = 'value' | NAME = credentials('id') } as a dict."""
    block = groovy_block(tokens, "environment")
    env, k = {}, 0
    while k < len(block):
        name, equals = block[k], block[k + 1]
        if name[0] != "word" or equals != ("punct", "="):
            raise AssertionError(f"environment {{}}: cannot read {name[1]!r} {equals[1]!r}")
        if block[k + 2] == ("word", "credentials"):
            credential = groovy_string(block[k + 4])
            if credential not in credentials:
                raise AssertionError(f"credentials({credential!r}) has no test value")
            env[name[1]] = credentials[credential]
            k += 6
        else:
            env[name[1]] = groovy_string(block[k + 2])
            k += 3
    return env


GITHUB_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def github_substitute(text, expressions):
    def value(match):
        if match.group(1) not in expressions:
            raise AssertionError(f"no test value for the expression ${{{{ {match.group(1)} }}}}")
        return expressions[match.group(1)]
    return GITHUB_EXPRESSION.sub(value, str(text))


# --- What a case sets and expects --------------------------------------------------------


class Case:
    """One pipeline run: which simulated runs, and the CI values it has."""

    def __init__(self, name, sim, exit_status, number, tag=None, version_variable=None):
        self.name = name
        self.sim = sim
        self.exit_status = exit_status
        self.number = number  # the pipeline's, the job's and the build's number
        self.commit = hashlib.sha1(name.encode()).hexdigest()
        self.tag = tag
        self.version_variable = version_variable
        self.branch = tag or "feature/softer-tyres"

    @property
    def expected_version(self):
        if self.version_variable:
            return self.version_variable
        return self.tag[1:] if self.tag else None


CASES = [
    # A release tag: the version label is the tag without its "v".
    Case("pass", "sim_a", PASS, 4711, tag="v4.10.0"),
    # A branch with the version from the CI variable.
    Case("fail", "sim_b", FAIL, 4712, version_variable="4.11.0-rc1"),
    # Runs that each read well but do not fit together: the validation fails on the server.
    Case("bad_input", "sim_other_channels", BAD_INPUT, 4713),
    # A label the CLI refuses (values of at most 256 characters): the detached create fails.
    Case("bad_label", "sim_a", BAD_INPUT, 4714, version_variable="4." * 150),
]


# --- The test ----------------------------------------------------------------------------


class TemplateStructureTest(unittest.TestCase):
    """Each template as its CI system reads it; needs no server."""

    def test_gitlab_structure(self):
        config = yaml.safe_load((REPO / "examples/ci/gitlab-ci.yml").read_text())
        _, job = gitlab_job(config)
        self.assertIn(job.get("stage", "test"), config["stages"])
        self.assertTrue(all(isinstance(line, str) for line in job["script"]))
        artifacts = job["artifacts"]
        self.assertEqual(artifacts["when"], "always")
        self.assertEqual(artifacts["reports"]["junit"], JUNIT)
        self.assertEqual(artifacts["reports"]["metrics"], METRICS)
        self.assertLessEqual({REPORT, JSON_REPORT}, set(artifacts["paths"]))

    def test_github_structure(self):
        workflow = yaml.safe_load((REPO / "examples/ci/github-actions.yml").read_text())
        self.assertIn("pull_request", github_on(workflow))
        (_, job), = workflow["jobs"].items()
        steps = job["steps"]
        uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
        self.assertEqual(len(uploads), 1)
        self.assertEqual(uploads[0]["if"], "always()")
        self.assertLessEqual({JUNIT, METRICS, REPORT, JSON_REPORT},
                             set(str(uploads[0]["with"]["path"]).split()))
        junit_steps = [s for s in steps if JUNIT in str(s.get("with", ""))
                       and "upload-artifact" not in str(s.get("uses"))]
        summaries = [s for s in steps if "GITHUB_STEP_SUMMARY" in str(s.get("run", ""))]
        for step in junit_steps + summaries:
            self.assertEqual(step.get("if"), "always()", step)
        self.assertTrue(junit_steps and summaries, "a JUnit publishing step and a job summary")
        for step in steps:
            # CI values reach scripts through env:, where a branch name cannot inject shell.
            self.assertNotIn("${{", str(step.get("run", "")), step.get("name"))

    def test_jenkins_structure(self):
        tokens = groovy_tokens((REPO / "examples/ci/Jenkinsfile").read_text())
        self.assertEqual(tokens[:2], [("word", "pipeline"), ("punct", "{")])
        self.assertTrue(jenkins_sh_blocks(groovy_block(tokens, "stages")))
        always = groovy_block(tokens, "post", "always")
        junit = [k for k, token in enumerate(always) if token == ("word", "junit")]
        self.assertEqual(len(junit), 1, "one junit step in post { always { } }")
        k = junit[0]
        self.assertEqual(always[k + 1:k + 3], [("word", "testResults"), ("punct", ":")])
        self.assertEqual(groovy_string(always[k + 3]), JUNIT)
        archive = [k for k, token in enumerate(always) if token == ("word", "archiveArtifacts")]
        self.assertEqual(len(archive), 1, "one archiveArtifacts step in post { always { } }")
        k = archive[0]
        self.assertEqual(always[k + 1:k + 3], [("word", "artifacts"), ("punct", ":")])
        archived = {p.strip() for p in groovy_string(always[k + 3]).split(",")}
        self.assertLessEqual({JUNIT, METRICS, REPORT, JSON_REPORT}, archived)


    def test_shell_steps_pass_shellcheck(self):
        shellcheck = shutil.which("shellcheck")
        if shellcheck is None:
            self.skipTest("shellcheck is not installed (apt-get install shellcheck)")
        for step, dialect, script in template_scripts():
            with self.subTest(step=step):
                checked = run([shellcheck, "--shell", dialect, "-"], input=script)
                self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)


class TemplateRunTest(unittest.TestCase):
    """Each template's shell steps against a real server: PASS, FAIL, bad input."""

    @classmethod
    def setUpClass(cls):
        cls.check_flags()
        cls.tmp = tempfile.TemporaryDirectory(prefix="ci_templates_")
        cls.scratch = Path(cls.tmp.name)
        cls.repo = REPO
        try:
            cls.prepare()
        except BaseException:
            cls.tmp.cleanup()
            raise

    @classmethod
    def prepare(cls):
        """The runs, the CLI on PATH and the server."""
        cls.data = cls.scratch / "data"
        made = run([ARGS.example_data, "--out", str(cls.data), "--sim-runs", "6", "--ref-runs",
                    "6"], timeout=120)
        if made.returncode != 0:
            raise RuntimeError(f"wasserwarp-example-data: {made.stderr}")
        cls.make_other_channels()
        cls.bin = cls.scratch / "bin"
        cls.bin.mkdir()
        (cls.bin / "wasserwarp").symlink_to(os.path.abspath(ARGS.cli))
        cls.server = Server(cls.scratch)

    @classmethod
    def tearDownClass(cls):
        try:
            status = cls.server.stop()
            if status != 0:
                raise AssertionError(f"server exit status {status} after SIGTERM:\n"
                                     f"{cls.server.log_path.read_text(errors='replace')}")
        finally:
            cls.tmp.cleanup()

    @classmethod
    def check_flags(cls):
        """The flags the templates use, or a message naming what they wait for."""
        missing = []
        help_text = run([ARGS.cli, "validate", "--help"]).stdout
        missing += [f"the CLI's validate {flag}" for flag in ("--junit", "--openmetrics",
                                                              "--label", "--report", "--json")
                    if flag not in help_text]
        server_help = run([ARGS.server, "--help"])
        if "--http_public_url" not in server_help.stdout + server_help.stderr:
            missing.append("the server's --http_public_url")
        if missing:
            raise AssertionError("the templates use what this build lacks: " +
                                 ", ".join(missing))

    @classmethod
    def make_other_channels(cls):
        """Variant A with its channels renamed: runs that each read well but do not match the
        measured ones, as when a model's output was renamed."""
        source, target = cls.data / "sim_a", cls.data / "sim_other_channels"
        target.mkdir()
        for run_file in sorted(source.iterdir()):
            header, rest = run_file.read_text().split("\n", 1)
            columns = header.split(",")
            renamed = [columns[0]] + [f"model_{column}" for column in columns[1:]]
            (target / run_file.name).write_text(",".join(renamed) + "\n" + rest)

    # --- running a template's steps --------------------------------------------------------

    def workspace(self, template, case):
        """A checkout with the bench's measurements and the simulation's results."""
        root = self.scratch / f"{template}-{case.name}"
        shutil.copytree(self.data / "ref", root / REF_DIR)
        shutil.copytree(self.data / case.sim, root / SIM_DIR)
        return root

    def base_environment(self, workspace):
        return {"PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin", "HOME": str(workspace),
                "LANG": "C.UTF-8", "CI": "true"}

    def run_script(self, shell, script, env, workspace, name):
        path = workspace.parent / f"{workspace.name}-{name}.sh"
        path.write_text(script)
        try:
            result = run([*shell, str(path)], timeout=STEP_TIMEOUT, cwd=workspace, env=env)
        except subprocess.TimeoutExpired as error:
            self.fail(f"{name} ran over {STEP_TIMEOUT} s:\n{error.stdout}\n{error.stderr}")
        return result

    def run_gitlab(self, case):
        config = yaml.safe_load((self.repo / "examples/ci/gitlab-ci.yml").read_text())
        name, job = gitlab_job(config)
        workspace = self.workspace("gitlab", case)
        env = self.base_environment(workspace)
        for variables in (config.get("variables", {}), job.get("variables", {})):
            for key, value in variables.items():
                value = value["value"] if isinstance(value, dict) else value
                self.assertNotIn("$", str(value), f"variables: {key}: this test expands no $")
                env[key] = str(value)
        env.update({
            "GITLAB_CI": "true", "CI_PROJECT_PATH_SLUG": "vehicle-dynamics-lane-change",
            "CI_PIPELINE_ID": str(case.number), "CI_JOB_ID": str(case.number * 10),
            "CI_PIPELINE_URL": f"https://gitlab.test/vd/lane-change/-/pipelines/{case.number}",
            "CI_COMMIT_SHA": case.commit, "CI_COMMIT_SHORT_SHA": case.commit[:8],
            "CI_COMMIT_REF_NAME": case.branch, "CI_PROJECT_DIR": str(workspace),
            "WASSERWARP_SERVER": self.server.address, "WASSERWARP_TOKEN": TOKEN,
            # A variable of type File: its value is the path of a file holding it.
            "WASSERWARP_TLS_CA": str(self.server.ca)})
        if case.tag:
            env["CI_COMMIT_TAG"] = case.tag
        if case.version_variable:
            env["WASSERWARP_VERSION"] = case.version_variable
        script = gitlab_script(job)
        result = self.run_script(["/bin/sh", "-e"], script, env, workspace, name)
        if "after_script" in job:
            self.run_script(["/bin/sh"], "\n".join(job["after_script"]), env, workspace,
                            f"{name}-after")
        artifacts = job["artifacts"]
        published = list(artifacts["paths"]) + [artifacts["reports"]["junit"],
                                                 artifacts["reports"]["metrics"]]
        return workspace, result.returncode, result.stdout + result.stderr, published

    def github_expressions(self, case):
        pull_request = case.tag is None
        return {
            "github.sha": case.commit,
            "github.ref_name": case.tag or f"{case.number}/merge",
            "github.ref_type": "tag" if case.tag else "branch",
            "github.head_ref": "" if case.tag else case.branch,
            "github.repository": "VehicleDynamics/Lane_Change",
            "github.run_id": str(case.number),
            "github.run_attempt": "1",
            "github.server_url": "https://github.test",
            "github.event_name": "pull_request" if pull_request else "push",
            "vars.WASSERWARP_SERVER": self.server.address,
            "vars.WASSERWARP_VERSION": case.version_variable or "",
            "secrets.WASSERWARP_TOKEN": TOKEN,
            "secrets.WASSERWARP_TLS_CA": self.server.ca.read_text(),
        }

    def run_github(self, case):
        workflow = yaml.safe_load((self.repo / "examples/ci/github-actions.yml").read_text())
        (name, job), = workflow["jobs"].items()
        workspace = self.workspace("github", case)
        runner_temp = workspace.parent / f"{workspace.name}-runner-temp"
        runner_temp.mkdir()
        summary = workspace.parent / f"{workspace.name}-step-summary.md"
        expressions = self.github_expressions(case)
        env = self.base_environment(workspace)
        env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
                    "RUNNER_TEMP": str(runner_temp), "GITHUB_STEP_SUMMARY": str(summary),
                    "GITHUB_SHA": case.commit})
        for block in (workflow.get("env", {}), job.get("env", {})):
            env.update({key: github_substitute(value, expressions) for key, value in
                        block.items()})
        default_shell = (job.get("defaults") or workflow.get("defaults") or {}).get(
            "run", {}).get("shell")
        status, output, published = 0, "", []
        for index, step in enumerate(job["steps"]):
            condition = str(step.get("if", "success()")).strip()
            condition = GITHUB_EXPRESSION.sub(r"\1", condition).strip()
            self.assertIn(condition, ("success()", "always()", "failure()"),
                          f"step {index}: an `if:` this test cannot evaluate")
            runs = {"success()": status == 0, "always()": True, "failure()": status != 0}
            if not runs[condition]:
                continue
            if "uses" in step:
                if step["uses"].startswith("actions/upload-artifact@"):
                    published += str(step["with"]["path"]).split()
                continue
            step_env = dict(env)
            step_env.update({key: github_substitute(value, expressions) for key, value in
                             step.get("env", {}).items()})
            shell = step.get("shell", default_shell)
            command = {None: ["bash", "-e"], "bash": ["bash", "--noprofile", "--norc", "-eo",
                                                      "pipefail"], "sh": ["sh", "-e"]}[shell]
            result = self.run_script(command, github_substitute(step["run"], expressions),
                                     step_env, workspace, f"{name}-{index}")
            output += result.stdout + result.stderr
            if result.returncode != 0 and status == 0:
                status = result.returncode
        if case.exit_status != BAD_INPUT:
            # The job summary names the record, PASS or FAIL.
            self.assertTrue(summary.is_file(), "no job summary")
            self.assertRegex(summary.read_text(),
                             r"<" + re.escape(PUBLIC_URL) + r"/sessions/\S+/validations/\S+>")
        return workspace, status, output, published

    def run_jenkins(self, case):
        tokens = groovy_tokens((self.repo / "examples/ci/Jenkinsfile").read_text())
        workspace = self.workspace("jenkins", case)
        env = self.base_environment(workspace)
        env.update(jenkins_environment(tokens, {"wasserwarp-token": TOKEN,
                                                "wasserwarp-tls-ca": str(self.server.ca)}))
        env.update({
            "JENKINS_URL": "https://jenkins.test/", "JOB_NAME": "vehicle-dynamics/Lane Change",
            "BUILD_NUMBER": str(case.number), "WORKSPACE": str(workspace),
            "BUILD_URL": f"https://jenkins.test/job/vd/job/lane-change/{case.number}/",
            "GIT_COMMIT": case.commit, "BRANCH_NAME": case.branch,
            "WASSERWARP_SERVER": self.server.address,
            # As the commented-out credentials('wasserwarp-tls-ca') line would set it.
            "WASSERWARP_TLS_CA": str(self.server.ca)})
        if case.tag:
            env["TAG_NAME"] = case.tag
        if case.version_variable:
            env["WASSERWARP_VERSION"] = case.version_variable
        status, output = 0, ""
        for index, script in enumerate(jenkins_sh_blocks(groovy_block(tokens, "stages"))):
            result = self.run_script(["/bin/sh", "-xe"], script, env, workspace,
                                     f"jenkins-{index}")
            output += result.stdout + result.stderr
            if result.returncode != 0:
                status = result.returncode
                break
        always = groovy_block(tokens, "post", "always")
        published = []
        for k, token in enumerate(always):
            if token == ("word", "archiveArtifacts"):
                self.assertEqual(always[k + 1:k + 3], [("word", "artifacts"), ("punct", ":")])
                published += [p.strip() for p in groovy_string(always[k + 3]).split(",")]
        return workspace, status, output, published

    # --- what every template must do -------------------------------------------------------

    def check_run(self, template, case, workspace, status, output, published):
        context = f"{template}, {case.name}: exit status {status}; output:\n{output}"
        self.assertEqual(status, case.exit_status, context)
        junit = workspace / JUNIT
        self.assertTrue(junit.is_file(), f"no {JUNIT}; {context}")
        suites = JUnitXml.fromfile(str(junit))
        cases = [test for suite in ([suites] if isinstance(suites, TestSuite) else suites)
                 for test in suite]
        self.assertTrue(cases, f"{JUNIT} holds no test case; {context}")
        results = [type(result) for test in cases for result in test.result]
        if case.exit_status == PASS:
            self.assertEqual(results, [], f"{JUNIT} reports {results} for a PASS; {context}")
        elif case.exit_status == FAIL:
            self.assertIn(Failure, results, f"{JUNIT} has no failure for a FAIL; {context}")
        else:
            self.assertIn(Error, results, f"{JUNIT} has no error for bad input; {context}")
        for path in published:
            self.assertNotIn("*", path, "the test checks named files")
        if case.exit_status == BAD_INPUT:
            return
        metrics = (workspace / METRICS).read_text()
        self.assertEqual(metrics.splitlines()[-1], "# EOF", f"{METRICS}:\n{metrics}")
        self.assertIn("<html", (workspace / REPORT).read_text()[:2000].lower())
        # Every file the job publishes exists.
        missing = [path for path in published if not (workspace / path).is_file()]
        self.assertEqual(missing, [], f"published but not written; {context}")
        report = json.loads((workspace / JSON_REPORT).read_text())
        labels = report["labels"]
        self.assertEqual(labels.get("commit"), case.commit, context)
        self.assertEqual(labels.get("branch"), case.branch, context)
        self.assertEqual(labels.get("version"), case.expected_version, context)
        self.assertEqual(report["verdict"]["pass"], case.exit_status == PASS, context)
        # The record's link, in a session named from the pipeline.
        links = re.findall(r"^record: (\S+)$", output, re.M)
        self.assertTrue(links, f"no `record: LINK` line; {context}")
        link = re.fullmatch(re.escape(PUBLIC_URL) +
                            r"/sessions/([a-z0-9][a-z0-9._-]{0,62})/validations/([a-z0-9._-]+)",
                            links[0])
        self.assertIsNotNone(link, f"unexpected link {links[0]}; {context}")
        self.assertIn(str(case.number), link.group(1), "session not named from the pipeline")
        # The test report names the same record.
        properties = {p.name: p.value for suite in
                      ([suites] if isinstance(suites, TestSuite) else suites)
                      for p in suite.properties()}
        self.assertEqual(properties.get("wasserwarp.link"), links[0], f"{JUNIT}; {context}")
        # The record on the server carries the labels.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "WASSERWARP_TOKEN": TOKEN}
        listed = run([ARGS.cli, "validations", "list", "--server", self.server.address,
                      "--tls-ca", str(self.server.ca), "--all-sessions", "--filter",
                      f'labels.commit = "{case.commit}"', "--json", "-"], env=env)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        records = [r for r in json.loads(listed.stdout)
                   if r["name"].startswith(f"sessions/{link.group(1)}/")]
        self.assertEqual(len(records), 1, listed.stdout)
        self.assertEqual(records[0]["outcome"]["passed"], case.exit_status == PASS)

    def check_template(self, template, runner):
        for case in CASES:
            with self.subTest(case=case.name):
                self.check_run(template, case, *runner(case))

    # --- the steps, run ---------------------------------------------------------------------

    def test_gitlab_job_runs(self):
        self.check_template("gitlab", self.run_gitlab)

    def test_github_workflow_runs(self):
        self.check_template("github", self.run_github)

    def test_jenkins_pipeline_runs(self):
        self.check_template("jenkins", self.run_jenkins)


def main():
    global ARGS, REPO
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--example-data", required=True)
    ARGS, rest = parser.parse_known_args()
    REPO = Path(ARGS.repo)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
