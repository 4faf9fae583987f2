"""A course as its people use it, in a real browser: Chromium (the Debian package) driven by Playwright,
against JupyterLab servers with nbgrader's extensions started here, one per person, and nbgrader's exchange
in a temporary folder.

The instructor's server runs in the course root (formgrader); each student's runs in the student's own
home with that student's nbgrader_config.py in ``~/.jupyter`` (the exchange, the course, the student id).
Every server gets a free port and a token, its own HOME (no settings, caches or workspaces shared with the
machine's user) and its own process group, ended by that group's id afterwards.

Chromium is looked for as ``$AUTOGRADER_CHROMIUM``, ``chromium``, ``chromium-browser``; Playwright never
downloads a browser here. Without it these tests are skipped, except under CI (``CI=true``), where
``.ci/run`` installs it and its absence fails them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

COURSE_ID = "gpu-lessons"
TOKEN = "browser-test-token"
# Lab user settings for every server: all cells in the page (Playwright sees them all), no news pop-up
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                         "checkForUpdates": False},
}


def find_chromium() -> str | None:
    for candidate in (os.environ.get("AUTOGRADER_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (path := shutil.which(candidate)):
            return path
    return None


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must install {what} (see .ci/run)")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="session")
def chromium() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("Playwright (pip install -e '.[dev]')")
    path = find_chromium()
    if path is None:
        _missing("Chromium (apt-get install chromium)")
    assert path is not None
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LabServer:
    """One `jupyter lab` process: its URL, its home and its log."""

    name: str
    root: Path
    home: Path
    port: int = field(default_factory=_free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def at(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.url}{path}{sep}token={TOKEN}"

    @property
    def log(self) -> Path:
        return self.home.parent / f"{self.name}-server.log"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
        env.update(HOME=str(self.home), JUPYTER_CONFIG_DIR=str(self.home / ".jupyter"))
        return env

    def start(self) -> None:
        settings = self.home / ".jupyter" / "lab" / "user-settings"
        for rel, value in LAB_SETTINGS.items():
            (settings / rel).parent.mkdir(parents=True, exist_ok=True)
            (settings / rel).write_text(json.dumps(value), encoding="utf-8")
        cmd = [
            sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={self.root}",
        ]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.root, env=self.env(), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name}'s server exited: {self.log.read_text(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(self.at("/api/status"), timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"{self.name}'s server did not answer in {timeout:.0f} s: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        """SIGTERM to the server, then SIGKILL to its process group (its kernels) by the group's id."""
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session: the server leads its own group
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)


def student_config(exchange: Path, student: str, home: Path) -> str:
    return (
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.Exchange.cache = {str(home / 'nbgrader_cache')!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.CourseDirectory.student_id = {student!r}\n"
    )


@dataclass
class Classroom:
    course: Path
    exchange: Path
    instructor: LabServer
    students: dict[str, LabServer]
    artifacts: Path

    def instructor_env(self) -> dict[str, str]:
        return self.instructor.env()


@pytest.fixture(scope="module")
def classroom(chromium, course_template, tmp_path_factory) -> Iterator[Classroom]:
    """The course (04_fusion generated), an empty exchange, the instructor's and two students' servers."""
    base = tmp_path_factory.mktemp("browser")
    course = base / "course"
    shutil.copytree(course_template, course)
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    instructor = LabServer("instructor", course, base / "home" / "instructor")
    (instructor.home / ".jupyter").mkdir(parents=True)
    (instructor.home / ".jupyter" / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\nc.Exchange.root = {str(exchange)!r}\n", encoding="utf-8")
    students = {}
    for name in ("alice", "bob"):
        home = base / "home" / name
        (home / ".jupyter").mkdir(parents=True)
        (home / ".jupyter" / "nbgrader_config.py").write_text(student_config(exchange, name, home), encoding="utf-8")
        students[name] = LabServer(name, home, home)
    servers = [instructor, *students.values()]
    artifacts = base / "screenshots"
    artifacts.mkdir()
    try:
        for s in servers:
            s.start()
        for s in servers:
            s.wait_ready()
        yield Classroom(course, exchange, instructor, students, artifacts)
    finally:
        for s in servers:
            s.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.browser_failed = report.failed


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium)
        try:
            yield b
        finally:
            b.close()
