"""Fixtures for the browser tests: a real diary-server on a temporary database, filled through
its JSON API, and a real Chromium (Debian's, headless) driven through chromedriver."""

import json
import os
import select
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BIN = os.environ.get("DIARY_BIN_DIR", ".build/debug")
SCREENSHOTS = os.environ.get("DIARY_SCREENSHOTS", os.path.join(tempfile.gettempdir(), "diary-screenshots"))


class Server:
    """diary-server on a free port; `post` writes through the API as the named user."""

    def __init__(self, folder):
        self.database = os.path.join(folder, "diary.sqlite3")
        self.tokens = {}
        self.process = subprocess.Popen(
            [os.path.join(BIN, "diary-server"), "serve", "--port", "0", "--database", self.database],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # The ready line, waited for with a deadline: a server that neither prints nor exits fails the run.
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("listening on http://"):
            self.process.kill()
            raise RuntimeError(f"diary-server did not start: {line!r}")
        self.url = line.split("listening on ", 1)[1].strip()

    def user(self, name):
        if name not in self.tokens:
            result = subprocess.run([os.path.join(BIN, "diary-server"), "user", "add", name, "--database", self.database],
                                    capture_output=True, text=True, timeout=60, check=True)
            self.tokens[name] = result.stdout.strip()
        return self.tokens[name]

    def request(self, method, path, body=None, user=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if user:
            request.add_header("Authorization", f"Bearer {self.user(user)}")
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return json.loads(raw) if raw else None

    def post(self, user, title, body="", tags=(), visibility="public", created=None):
        entry = {"title": title, "body": body, "tags": list(tags), "visibility": visibility}
        if created:
            entry["created"] = created
        return self.request("POST", "/api/entries", entry, user=user)

    def get(self, path):
        """Status, headers and body of a GET, whatever the status."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory(prefix="diary-browser-") as folder:
        running = Server(folder)
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(argument)
    # The console, to see any Content-Security-Policy violation a page caused.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
