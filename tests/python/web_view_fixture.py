"""What the web view's browser test and its benchmark share: certificates made with openssl, a
real wasserwarp-server with its web view on loopback, the CLI against it, and headless Chromium
driven by selenium with the checks that a page's charts were drawn.

Nothing here is imported by code that runs without selenium: the caller checks for it first.
"""

import os
import re
import socket
import subprocess
import time

SKIPPED = 77

# After load, whether every canvas has a pixel that is not transparent; the report's own
# browser test (tests/html_report_browser_test.cc) checks the same way.
CANVASES_DRAWN = """
const canvases = Array.from(document.querySelectorAll('canvas'));
const blank = canvases.filter((canvas) => {
  if (canvas.width === 0 || canvas.height === 0) return true;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return false;
  return true;
});
return {canvases: canvases.length, blank: blank.length};
"""


def make_certificates(directory):
    """A CA and a server certificate for 127.0.0.1 and localhost: (ca, cert, key) paths."""
    with open(os.path.join(directory, "server.ext"), "w") as ext:
        ext.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                  "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
    key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    script = (f"openssl req -x509 {key} -days 1 -subj '/CN=web view test CA' -keyout ca.key "
              f"-out ca.pem && openssl req {key} -subj '/CN=localhost' -keyout server.key "
              f"-out server.csr && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
              f"-CAcreateserial -days 1 -extfile server.ext -out server.pem")
    subprocess.run(script, shell=True, cwd=directory, check=True, capture_output=True)
    return tuple(os.path.join(directory, name) for name in ("ca.pem", "server.pem", "server.key"))


def free_port():
    """A loopback port nobody listens on: bound, then released."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebServer:
    """A wasserwarp-server with its web view on a chosen port, HTTPS with `certificates`."""

    def __init__(self, program, directory, flags=(), certificates=None):
        self.port = free_port()
        scheme = "https" if certificates else "http"
        self.base = f"{scheme}://127.0.0.1:{self.port}"
        args = [program, "--listen", "127.0.0.1:0", "--data_dir=",
                "--http_listen", f"127.0.0.1:{self.port}", "--http_public_url", self.base]
        if certificates:
            args += ["--tls_cert", certificates[1], "--tls_key", certificates[2]]
        self.log_path = os.path.join(directory, "server.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(args + list(flags), stdout=subprocess.PIPE,
                                        stderr=self.log)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the server did not start: {self.read_log()}")
        self.address = line.split()[-1]

    def read_log(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def link_of(self, name, seconds=30):
        """The link the server logs when validation `name` ends."""
        deadline = time.time() + seconds
        pattern = re.compile(rf"validation {re.escape(name)} ended \w+: (\S+)")
        while time.time() < deadline:
            found = pattern.search(self.read_log())
            if found:
                return found.group(1)
            time.sleep(0.1)
        raise AssertionError(f"no log line with the link of {name}")

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=30)
        self.log.close()
        return code


class Cli:
    """The wasserwarp CLI against a server, as one principal."""

    def __init__(self, program, server, directory, token=None, ca=None):
        self.program = program
        self.args = ["--server", server.address]
        if token:
            token_file = os.path.join(directory, f"token-{abs(hash(token))}")
            with open(token_file, "w") as out:
                out.write(token + "\n")
            self.args += ["--token-file", token_file]
        if ca:
            self.args += ["--tls-ca", ca]

    def __call__(self, *args, check=True):
        result = subprocess.run([self.program, *args, *self.args], capture_output=True, text=True)
        if check and result.returncode not in (0, 1):
            raise AssertionError(f"wasserwarp {' '.join(args)}: {result.stderr}")
        return result

    def session_with_runs(self, session, data):
        self("sessions", "create", "--session", session)
        self("upload", "--session", session, "--sim", os.path.join(data, "sim_a"), "--ref",
             os.path.join(data, "ref"))

    def names(self, session):
        """The names of the session's records, newest first."""
        listed = self("validations", "list", "--session", session).stdout.splitlines()[1:]
        return [f"sessions/{session}/validations/{line.split()[0]}" for line in listed]


def chromium_driver():
    """Headless Chromium through chromedriver, its console log kept; None when either is
    missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    browser = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")
                    if os.access(p, os.X_OK)), None)
    driver = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
                   if os.access(p, os.X_OK)), None)
    if browser is None or driver is None:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1024", "--disable-background-networking"):
        options.add_argument(flag)
    # The server's certificate comes from the test's own CA.
    options.set_capability("acceptInsecureCerts", True)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def wait_for_charts(driver, seconds=30):
    """Waits until the page has canvases and none is blank; returns the last check."""
    deadline = time.time() + seconds
    check = {"canvases": 0, "blank": 0}
    while time.time() < deadline:
        check = driver.execute_script(CANVASES_DRAWN)
        if check["canvases"] > 0 and check["blank"] == 0:
            return check
        time.sleep(0.05)
    return check
