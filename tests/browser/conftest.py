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
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
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


# --- what a person does in the page: the helpers every browser test uses ------------------------------------
REPO = Path(__file__).resolve().parents[2]


def squash(text: str) -> str:
    return " ".join(text.split())


def until(check: Any, timeout_s: float, why: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, why
        time.sleep(0.2)


@dataclass(frozen=True)
class Released:
    """One released lesson notebook (release/LESSON/LESSON.ipynb): where each graded cell is."""

    lesson: str

    @property
    def notebook(self) -> str:
        return f"{self.lesson}/{self.lesson}.ipynb"

    def cells(self) -> list[Any]:
        return nbformat.read(str(REPO / "release" / self.notebook), as_version=4).cells

    def index(self, grade_id: str) -> int:
        return next(i for i, c in enumerate(self.cells())
                    if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


def shot(artifacts: Path, page: Any, name: str, readme: Mapping[str, str], **kw: Any) -> Path:
    """A screenshot kept under ``artifacts``; one README.md shows (``readme``: its name -> the README's name)
    is copied to ``$AUTOGRADER_SCREENSHOTS`` too."""
    path = artifacts / name
    page.screenshot(path=str(path), **kw)
    target = os.environ.get("AUTOGRADER_SCREENSHOTS")
    if target and name in readme:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, Path(target) / readme[name])
    return path


def formgrader_action(page: Any, lesson: str, column: str) -> str:
    """Click the lesson's icon in a column of formgrader's Manage Assignments table; returns the log shown."""
    row = page.locator("tr", has=page.locator("td.name", has_text=lesson))
    row.locator(f"td.{column} a").click()
    modal = page.locator("#success-modal, #error-modal").first
    modal.wait_for(state="visible", timeout=120_000)
    text = modal.inner_text()
    assert modal.get_attribute("id") == "success-modal", text
    modal.locator(".modal-footer button").first.click()
    modal.wait_for(state="detached")
    return text


def open_lab(page: Any, server: LabServer) -> None:
    page.goto(server.at("/lab"))
    page.locator("#jp-main-dock-panel").wait_for()
    page.get_by_text("Nbgrader", exact=True).click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.locator("#released_assignments_list, #fetched_assignments_list").first.wait_for()


def fetch_and_open(page: Any, server: LabServer, nb: Released) -> Any:
    """In the Assignments panel: Fetch the lesson, open its notebook; returns the notebook's cells in the page,
    once they have all appeared and the kernel is idle."""
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Assignments").click()
    page.locator("#released_assignments_list .list_item", has_text=nb.lesson).get_by_role("button", name="Fetch").click()
    fetched = page.locator("#fetched_assignments_list .list_item", has_text=nb.lesson).first
    fetched.wait_for()
    assert (server.root / nb.notebook).exists(), "Fetch did not put the notebook in the student's home"
    fetched.locator("a.assignment-notebooks-link").click()
    page.locator(f"#nbgrader-{COURSE_ID}-{nb.lesson} .nested_list_item a", has_text=nb.lesson).click()
    cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
    until(lambda: cells.count() == len(nb.cells()), 60, f"{nb.lesson}'s cells did not all appear")
    page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle")).first.wait_for(timeout=90_000)
    return cells


def write_cell(page: Any, cells: Any, i: int, text: str) -> None:
    """Replace cell i's text as a student does: into the editor, select all, type (inserted as typed)."""
    cell = cells.nth(i)
    if "jp-MarkdownCell" in (cell.get_attribute("class") or ""):
        cell.dblclick()  # a rendered Markdown cell opens its editor on double click
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")


def select_cell(page: Any, cells: Any, i: int) -> None:
    """Select cell i in command mode (a click on its prompt, as a student clicks beside a cell)."""
    cells.nth(i).locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")


def run_selected(page: Any, cell: Any, timeout_s: float = 180) -> str:
    """Shift+Enter on the selected cell (the selection moves on to the next one); waits until a code cell
    has run (a new execution count); returns its output text."""
    code = "jp-CodeCell" in (cell.get_attribute("class") or "")
    prompt = cell.locator(".jp-InputPrompt")
    before = prompt.inner_text().strip() if code else ""
    page.keyboard.press("Shift+Enter")
    if not code:
        return ""

    def finished() -> bool:
        now = prompt.inner_text().strip()
        return bool(re.fullmatch(r"\[\d+\]:", now)) and now != before

    until(finished, timeout_s, "the cell did not finish")
    return str(cell.locator(".jp-OutputArea").inner_text())


def run_cell(page: Any, cells: Any, i: int, timeout_s: float = 180) -> str:
    """Select cell i, Shift+Enter, wait for a new execution count; returns the output text it shows, squashed."""
    select_cell(page, cells, i)
    return squash(run_selected(page, cells.nth(i), timeout_s))


def run_all(page: Any, cells: Any) -> None:
    """Run > Run All Cells, once the kernel is idle; clicked again if nothing started within 20 s (a
    notebook just opened can drop the first request while its kernel connects)."""
    page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle")).first.wait_for(timeout=90_000)
    prompts = page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputPrompt")
    for _ in range(3):
        select_cell(page, cells, 0)
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:visible", has_text=re.compile(r"^Run All Cells")).click()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if any(re.fullmatch(r"\[[\d*]+\]:", t.strip()) for t in prompts.all_inner_texts()):
                wait_all_run(page)
                return
            time.sleep(0.3)
    raise AssertionError("Run All Cells did not start")


def wait_all_run(page: Any, timeout_s: float = 300) -> None:
    """Until every code cell of the notebook has an execution count (Run All has reached the end)."""
    prompts = page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputPrompt")
    until(lambda: all(re.fullmatch(r"\[\d+\]:", t.strip()) for t in prompts.all_inner_texts()), timeout_s,
          "Run All did not reach the end of the notebook")


def save(page: Any, server: LabServer, nb: Released) -> Any:
    """Ctrl+S, until the tab is no longer dirty; returns the notebook as saved in the server's folder."""
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current")
    until(lambda: "jp-mod-dirty" not in (tab.get_attribute("class") or ""), 30, "the notebook was not saved")
    return nbformat.read(str(server.root / nb.notebook), as_version=4)


def submit(page: Any, lesson: str) -> None:
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Assignments").click()
    page.locator("#fetched_assignments_list .list_item", has_text=lesson).first.get_by_role(
        "button", name="Submit").click()
    page.locator("#submitted_assignments_list .list_item", has_text=lesson).first.wait_for()
