"""The web view in a real browser: a wasserwarp-server with access tokens and HTTPS, records
made with the CLI, and headless Chromium (selenium and chromedriver) signing in, filtering,
opening a record and its charts, the history page's charts, the link the server gives, and
what another principal or no principal sees; no Content-Security-Policy violation in the
console. Exit status 77 (skipped) without selenium, chromium or chromedriver.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_view_fixture as fixture  # noqa: E402

ARGS = None


class WebViewBrowserTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="web_view_browser_")
        directory = cls.tmp.name
        cls.driver = fixture.chromium_driver()
        certificates = fixture.make_certificates(directory)
        with open(os.path.join(directory, "tokens"), "w") as tokens:
            tokens.write("alice:tok-alice\nbob:tok-bob\n")
        cls.server = fixture.WebServer(ARGS.server, directory,
                                       ["--auth_tokens_file", os.path.join(directory, "tokens")],
                                       certificates)
        data = os.path.join(directory, "data")
        subprocess.run([ARGS.example_data, "--out", data, "--sim-runs", "3", "--ref-runs", "4"],
                       check=True, capture_output=True)
        alice = fixture.Cli(ARGS.cli, cls.server, directory, "tok-alice", certificates[0])
        bob = fixture.Cli(ARGS.cli, cls.server, directory, "tok-bob", certificates[0])
        alice.session_with_runs("lane-change", data)
        # One record with the page stored, two drawn from their stored reports.
        alice("validate", "--session", "lane-change", "--label", "version=4.9.2",
              "--max-distance", "1e12", "--report", os.path.join(directory, "page.html"))
        for version in ("4.10.0", "4.10.1"):
            alice("validate", "--session", "lane-change", "--label", f"version={version}",
                  "--max-distance", "1e12")
        cls.alice_names = alice.names("lane-change")
        bob.session_with_runs("bob-bench", data)
        bob("validate", "--session", "bob-bench", "--label", "version=1.0")
        cls.bob_name = bob.names("bob-bench")[0]

    @classmethod
    def tearDownClass(cls):
        if cls.driver is not None:
            cls.driver.quit()
        cls.server.stop()
        cls.tmp.cleanup()

    def open(self, path):
        self.driver.get(self.server.base + path)

    def sign_in(self, token):
        from selenium.webdriver.common.by import By
        self.open("/")
        self.assertIn("/signin", self.driver.current_url)
        self.driver.find_element(By.ID, "token").send_keys(token)
        self.driver.find_element(By.ID, "signin").click()

    def sign_out(self):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.ID, "signout").click()

    def rows(self):
        from selenium.webdriver.common.by import By
        return [row.get_attribute("data-name")
                for row in self.driver.find_elements(By.CSS_SELECTOR, "tr.record")]

    def heading(self):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.TAG_NAME, "h1").text

    def assert_no_csp_violation(self):
        messages = [entry["message"] for entry in self.driver.get_log("browser")]
        # The browser's own request for /favicon.ico is not the page's doing.
        violations = [m for m in messages
                      if ("Content Security Policy" in m or "Refused to" in m)
                      and "favicon.ico" not in m]
        self.assertEqual(violations, [])

    def test_a_browser_signs_in_filters_and_opens_records(self):
        from selenium.webdriver.common.by import By
        # Nothing without a principal: every page leads to the sign-in form.
        for path in ("/", "/" + self.alice_names[0], "/history?by=labels.version"):
            self.open(path)
            self.assertIn("/signin?next=", self.driver.current_url, path)
            self.assertEqual(self.rows(), [], path)
            self.assertNotIn("<canvas", self.driver.page_source, path)

        self.sign_in("tok-alice")
        self.assertEqual(self.driver.current_url, self.server.base + "/",
                         self.driver.page_source[-600:] + self.server.read_log()[-1500:])
        self.assertEqual(sorted(self.rows()), sorted(self.alice_names))
        self.assertNotIn(self.bob_name, self.rows())
        self.assert_no_csp_violation()

        box = self.driver.find_element(By.ID, "filter")
        box.send_keys('labels.version = "4.10.0"')
        box.submit()
        self.assertEqual(len(self.rows()), 1)
        self.open("/?filter=labels.version%20%3D%3D")
        self.assertIn("at position", self.driver.find_element(By.ID, "error").text)

        # Every record's report, stored page or drawn, has its charts drawn.
        for name in self.alice_names:
            self.open("/")
            self.driver.find_element(By.CSS_SELECTOR, f'tr[data-name="{name}"] a').click()
            check = fixture.wait_for_charts(self.driver)
            self.assertGreater(check["canvases"], 0, name)
            self.assertEqual(check["blank"], 0, name)
            self.assert_no_csp_violation()

        self.open("/history?by=labels.version")
        check = fixture.wait_for_charts(self.driver)
        self.assertGreater(check["canvases"], 0)
        self.assertEqual(check["blank"], 0)
        points = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('canvas')).map((c) => "
            "{ const chart = Chart.getChart(c); return chart ? "
            "chart.data.datasets.reduce((n, d) => n + d.data.length, 0) : 0; });")
        self.assertGreater(max(points), 0)
        self.assert_no_csp_violation()

        # The link the server gives opens the record.
        link = self.server.link_of(self.alice_names[0])
        self.assertEqual(link, f"{self.server.base}/{self.alice_names[0]}")
        self.driver.get(link)
        self.assertGreater(fixture.wait_for_charts(self.driver)["canvases"], 0)

        # Another principal's record is not found, as one that never was.
        self.open("/" + self.bob_name)
        self.assertEqual(self.heading(), "Not found")
        self.open("/" + self.bob_name + "/report.json")
        self.assertNotIn("distance", self.driver.page_source)
        self.assert_no_csp_violation()

        self.open("/")
        self.sign_out()
        self.open("/")
        self.assertIn("/signin", self.driver.current_url)


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--example-data", required=True)
    ARGS, rest = parser.parse_known_args()
    try:
        import selenium  # noqa: F401
    except ImportError:
        print("skipped: python3-selenium is not installed (apt-get install python3-selenium)")
        sys.exit(fixture.SKIPPED)
    driver = fixture.chromium_driver()
    if driver is None:
        print("skipped: chromium or chromedriver is missing (apt-get install chromium "
              "chromium-driver)")
        sys.exit(fixture.SKIPPED)
    driver.quit()
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
