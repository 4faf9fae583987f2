"""ONE real single-node Slurm for every test of tests/scaleout/, whichever xdist worker runs it.

A Slurm is one per machine (scripts/slurm/start.sh writes the global /etc/slurm and its daemons listen on
fixed ports), and CI runs `-n 4 --dist loadfile`: two files needing Slurm may run on two workers at once.
So the workers share it through a lock file in the run's own temporary folder: the first to need it starts
it, every later one uses it, and the last to finish stops it; starting and stopping never overlap. A Slurm
that was already up before the run (started by hand) is used and left running."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _up(env: dict[str, str]) -> bool:
    if shutil.which("scontrol") is None:
        return False
    ping = subprocess.run(["scontrol", "ping"], env=env, capture_output=True, text=True, timeout=30)
    return ping.returncode == 0 and "UP" in ping.stdout


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run sees, and no other run: the workers' base temp's parent
    (pytest-N/popen-gwK/..), or the base temp itself without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[dict[str, Any]]:
    """The shared state file, read and written under an exclusive lock (held across start and stop)."""
    with open(path.with_suffix(".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            state = json.loads(path.read_text()) if path.exists() else {"users": 0, "ours": False}
            yield state
            path.write_text(json.dumps(state))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def slurm(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment to run Slurm's commands in (SLURM_SCRATCH: where its state and logs are)."""
    if shutil.which("slurmctld") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Slurm (see .ci/run)")
        pytest.skip("Slurm is not installed (apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server)")
    root = _shared_root(tmp_path_factory)
    env = {**os.environ, "SLURM_SCRATCH": str(root / "slurm")}
    with _locked(root / "slurm-users.json") as state:
        if state["users"] == 0:
            if _up(env):  # one Slurm per machine: one already up (by hand) is used and left running
                state["ours"] = False
            else:
                up = subprocess.run(["bash", str(repo / "scripts/slurm/start.sh")], env=env, capture_output=True,
                                    text=True, timeout=300)
                assert up.returncode == 0, up.stdout + up.stderr
                state["ours"] = True
        state["users"] = int(state["users"]) + 1
    yield env
    with _locked(root / "slurm-users.json") as state:
        state["users"] = int(state["users"]) - 1
        if state["users"] == 0 and state["ours"]:
            down = subprocess.run(["bash", str(repo / "scripts/slurm/stop.sh")], env=env, capture_output=True,
                                  text=True, timeout=120)
            assert down.returncode == 0, down.stderr
