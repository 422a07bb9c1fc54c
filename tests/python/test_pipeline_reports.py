"""The release pipelines' reports of the CLI (issue 39), read as their consumers read them: the
JUnit XML of --junit by junitparser, the OpenMetrics text of --openmetrics by a checker written
here from the format's rules (not by our writer). PASS, FAIL and bad input, embedded and against
a real wasserwarp-server on loopback; the exit statuses stay 0, 1, 2 (and 3 without a server).

Exit status 77 (skipped) when python3-junitparser is not installed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

SKIPPED = 77

try:
    from junitparser import Error, Failure, JUnitXml, Skipped
except ImportError:
    print(f"{os.path.basename(sys.argv[0])}: skipped: python3-junitparser is not installed")
    sys.exit(SKIPPED)

ARGS = None

METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
NUMBER = re.compile(r"[+-]?(Inf|NaN|[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?"
                    r"|\.[0-9]+([eE][+-]?[0-9]+)?)")


def parse_labels(text, at):
    """The label set at text[at] (just after '{') and the index after its '}'."""
    labels = {}
    while text[at] != "}":
        name = LABEL_NAME.match(text, at)
        if name is None:
            raise ValueError(f"bad label name at {text[at:]!r}")
        at = name.end()
        if text[at:at + 2] != '="':
            raise ValueError(f"expected =\" after label {name.group()}")
        at += 2
        value = []
        while text[at] != '"':
            if text[at] == "\\":
                escaped = text[at + 1]
                if escaped not in 'n"\\':
                    raise ValueError(f"bad escape \\{escaped}")
                value.append("\n" if escaped == "n" else escaped)
                at += 2
            elif text[at] == "\n":
                raise ValueError("raw newline in a label value")
            else:
                value.append(text[at])
                at += 1
        at += 1
        if name.group() in labels:
            raise ValueError(f"label {name.group()} twice")
        labels[name.group()] = "".join(value)
        if text[at] == ",":
            at += 1
    return labels, at + 1


def parse_openmetrics(text):
    """The families of an OpenMetrics text exposition, {name: {"type", "samples": [(labels,
    value)]}}; ValueError where the text breaks the format's rules."""
    if not text.endswith("# EOF\n"):
        raise ValueError("does not end with '# EOF'")
    lines = text[:-len("# EOF\n")].split("\n")
    if lines[-1] != "":
        raise ValueError("the last line before # EOF lacks its newline")
    families, current, seen_samples = {}, None, set()
    for line in lines[:-1]:
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) < 4 or parts[1] not in ("TYPE", "HELP", "UNIT"):
                raise ValueError(f"bad metadata line {line!r}")
            name = parts[2]
            if not METRIC_NAME.fullmatch(name):
                raise ValueError(f"bad family name {name!r}")
            if name != current:
                if name in families:
                    raise ValueError(f"family {name} appears twice")
                families[name] = {"type": None, "samples": []}
                current = name
            family = families[name]
            if family["samples"]:
                raise ValueError(f"metadata of {name} after its samples")
            if parts[1] == "TYPE":
                family["type"] = parts[3]
            continue
        name = METRIC_NAME.match(line)
        if name is None or name.group() != current:
            raise ValueError(f"sample {line!r} outside its family's block")
        at = name.end()
        labels = {}
        if line[at:at + 1] == "{":
            labels, at = parse_labels(line, at + 1)
        if line[at:at + 1] != " ":
            raise ValueError(f"no space before the value in {line!r}")
        value = line[at + 1:].split(" ")[0]
        if not NUMBER.fullmatch(value):
            raise ValueError(f"bad value {value!r}")
        key = (current, tuple(sorted(labels.items())))
        if key in seen_samples:
            raise ValueError(f"sample {key} twice")
        seen_samples.add(key)
        families[current]["samples"].append((labels, float(value)))
    for name, family in families.items():
        if family["type"] != "gauge":
            raise ValueError(f"family {name} is not declared a gauge")
    return families


class ConsumerTest(unittest.TestCase):
    """The data set, and a server for the tests that need one."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pipeline_reports_")
        cls.data = os.path.join(cls.tmp.name, "data")
        subprocess.run([ARGS.example_data, "--out", cls.data, "--sim-runs", "4", "--ref-runs",
                        "6"], check=True, stdout=subprocess.DEVNULL)
        cls.server = subprocess.Popen(
            [ARGS.server, "--listen", "127.0.0.1:0",
             "--data_dir=" + os.path.join(cls.tmp.name, "server-data")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        line = cls.server.stdout.readline().strip()
        if not line.startswith("listening on "):
            cls.server.kill()
            raise RuntimeError(f"server did not say where it listens: {line!r}")
        cls.address = line[len("listening on "):]

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(timeout=20)
        cls.server.stdout.close()
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, f"{self.id().rsplit('.', 1)[-1]}_{name}")

    def cli(self, *args, status):
        """Runs the CLI with --junit and --openmetrics; the reports, read, and the output."""
        junit, metrics = self.path("junit.xml"), self.path("metrics.txt")
        result = subprocess.run([ARGS.cli, *args, "--junit", junit, "--openmetrics", metrics],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, status, result.stderr)
        suites = list(JUnitXml.fromfile(junit))
        self.assertEqual(len(suites), 1)
        with open(metrics, encoding="utf-8") as file:
            families = parse_openmetrics(file.read())
        return suites[0], families, result

    def validate(self, *extra, status):
        return self.cli("validate", "--sim", os.path.join(self.data, "sim_a"), "--ref",
                        os.path.join(self.data, "ref"), "--permutations", "99", *extra,
                        status=status)

    def properties(self, suite):
        return {p.name: p.value for p in suite.properties()}

    def results(self, suite):
        return {case.name: case.result for case in suite}

    def check_error(self, suite, families, code):
        self.assertEqual((suite.tests, suite.failures, suite.errors), (1, 0, 1))
        [case] = list(suite)
        [error] = case.result
        self.assertIsInstance(error, Error)
        self.assertEqual(error.type, code)
        self.assertTrue(error.message)
        self.assertEqual(list(families), ["wasserwarp_error"])
        self.assertEqual(families["wasserwarp_error"]["samples"], [({"code": code}, 1.0)])

    def check_rules(self, suite, families, expected):
        """`expected`: {rule: passed}; the testcases and the rule gauges say the same."""
        results = self.results(suite)
        self.assertEqual(set(results), set(expected))
        for rule, passed in expected.items():
            self.assertEqual(results[rule] == [], passed, rule)
            if not passed:
                [failure] = results[rule]
                self.assertIsInstance(failure, Failure)
                self.assertRegex(failure.message, r"value .*, threshold .*; basis: ")
        self.assertEqual(suite.failures, sum(not p for p in expected.values()))
        passes = {labels["rule"]: value for labels, value in
                  families["wasserwarp_rule_pass"]["samples"]}
        self.assertEqual(passes, {rule: float(p) for rule, p in expected.items()})

    def test_embedded_pass_names_the_suite_and_carries_the_numbers(self):
        suite, families, _ = self.validate("--max-ratio", "100", "--label", "name=lane change",
                                           "--label", "vehicle/variant=<sport & \"fast\">",
                                           status=0)
        self.assertEqual(suite.name, "lane change")
        self.assertRegex(suite.timestamp, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertGreater(suite.time, 0)
        self.check_rules(suite, families, {"max_ratio": True})
        props = self.properties(suite)
        for name in ("distance", "p_value", "ratio", "ratio_interval_low", "ratio_interval_high"):
            float(props[f"wasserwarp.{name}"])
            [(labels, value)] = families[f"wasserwarp_{name}"]["samples"]
            self.assertEqual(value, float(props[f"wasserwarp.{name}"]))
            self.assertEqual(labels, {"name": "lane change",
                                      "vehicle_variant": "<sport & \"fast\">"})
        self.assertTrue(props["wasserwarp.engine_version"])
        self.assertNotIn("wasserwarp.link", props)  # embedded: no record, no link
        self.assertEqual(props["label.vehicle/variant"], "<sport & \"fast\">")
        for case in suite:
            self.assertEqual(case.classname, "wasserwarp.validate")
        [(_, threshold)] = families["wasserwarp_rule_threshold"]["samples"]
        self.assertEqual(threshold, 100.0)

    def test_embedded_fail_reports_each_rule(self):
        suite, families, _ = self.validate("--max-distance", "0", "--max-ratio", "100",
                                           status=1)
        self.check_rules(suite, families, {"max_distance": False, "max_ratio": True})
        self.assertEqual(suite.name, "validate")

    def test_no_rule_is_one_passing_testcase(self):
        suite, families, _ = self.validate(status=0)
        self.check_rules(suite, families, {"distance": True})

    def test_bad_input_is_one_error(self):
        suite, families, result = self.cli("validate", "--sim", self.path("missing"), "--ref",
                                           os.path.join(self.data, "ref"), status=2)
        code = list(suite)[0].result[0].type
        self.assertIn(code, ("INVALID_ARGUMENT", "NOT_FOUND"))
        self.check_error(suite, families, code)
        self.assertIn(list(suite)[0].result[0].message, result.stderr)

    def test_usage_error_is_one_error(self):
        suite, families, result = self.cli("validate", "--no-such-flag", status=2)
        self.check_error(suite, families, "INVALID_ARGUMENT")
        self.assertIn("--no-such-flag", list(suite)[0].result[0].message)
        self.assertIn(list(suite)[0].result[0].message, result.stderr)

    def test_compare_is_one_passing_difference(self):
        suite, families, _ = self.cli(
            "compare", "--sim-a", os.path.join(self.data, "sim_a"), "--sim-b",
            os.path.join(self.data, "sim_b"), "--ref", os.path.join(self.data, "ref"),
            "--resamples", "99", status=0)
        self.assertEqual(self.results(suite), {"difference": []})
        for name in ("distance_a", "distance_b", "difference", "difference_interval_low",
                     "difference_interval_high"):
            self.assertIn(f"wasserwarp_{name}", families)

    def study(self, command, *extra, status):
        study = os.path.join(self.data, "study")
        return self.cli(command, "--sim", os.path.join(study, "sim"), "--ref",
                        os.path.join(study, "ref"), "--sim-params",
                        os.path.join(study, "sim_params.csv"), "--resamples", "19", *extra,
                        status=status)

    def test_identify_judges_its_three_checks(self):
        suite, families, _ = self.study("identify", "--max-ratio", "1000", status=0)
        self.check_rules(suite, families, {"inside_design": True, "convex_surface": True,
                                           "max_ratio": True})
        self.assertIn("wasserwarp_predicted_distance", families)
        suite, families, _ = self.study("identify", "--max-ratio", "0.001", status=1)
        self.check_rules(suite, families, {"inside_design": True, "convex_surface": True,
                                           "max_ratio": False})

    def test_sensitivity_is_a_testcase_per_parameter(self):
        suite, families, _ = self.study(
            "sensitivity", "--nominal", "front_cornering=69750,yaw_inertia=2600", status=0)
        self.check_rules(suite, families, {"front_cornering": True, "yaw_inertia": True})
        values = {labels["rule"]: value
                  for labels, value in families["wasserwarp_rule_value"]["samples"]}
        [(_, spread)] = families["wasserwarp_baseline_ref_ref_median"]["samples"]
        for rule, value in values.items():
            self.assertLessEqual(value, spread, rule)

    def test_server_one_off_validation(self):
        suite, families, _ = self.validate("--server", self.address, "--max-distance", "0",
                                           "--label", "name=served", status=1)
        self.assertEqual(suite.name, "served")
        self.check_rules(suite, families, {"max_distance": False})

    def test_server_records_show_and_latest(self):
        session = "junit-records"
        subprocess.run([ARGS.cli, "sessions", "create", "--server", self.address, "--session",
                        session], check=True, capture_output=True)
        subprocess.run([ARGS.cli, "upload", "--server", self.address, "--session", session,
                        "--sim", os.path.join(self.data, "sim_a"), "--ref",
                        os.path.join(self.data, "ref")], check=True, capture_output=True)
        queued, families, created = self.cli(
            "validate", "--server", self.address, "--session", session, "--detach",
            "--max-distance", "0", "--permutations", "99", status=0)
        # Nothing judged yet: a skipped testcase, and no sample.
        [case] = list(queued)
        [skipped] = case.result
        self.assertIsInstance(skipped, Skipped)
        self.assertEqual(families, {})
        name = created.stdout.strip()
        self.assertRegex(name, r"^sessions/junit-records/validations/[^/\s]+$")
        subprocess.run([ARGS.cli, "validations", "watch", "--server", self.address, name],
                       capture_output=True, timeout=120)
        suite, families, _ = self.cli("validations", "show", "--server", self.address, name,
                                      status=1)
        self.assertEqual(suite.name, name)  # no "name" label: the record's name
        self.check_rules(suite, families, {"max_distance": False})
        for case in suite:
            self.assertEqual(case.classname, "wasserwarp.validations")
        latest, _, _ = self.cli("validations", "latest", "--server", self.address, "--session",
                                session, status=1)
        self.assertEqual(latest.name, name)
        missing, families, _ = self.cli("validations", "show", "--server", self.address,
                                        f"sessions/{session}/validations/none", status=2)
        self.check_error(missing, families, "NOT_FOUND")

    def test_no_server_is_an_unavailable_error(self):
        suite, families, _ = self.validate("--server", "127.0.0.1:1", status=3)
        self.check_error(suite, families, "UNAVAILABLE")


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--example-data", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
