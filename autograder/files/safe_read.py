"""Open a submitted notebook without following links, blocking, or reading more than the limit.

The grader resolves ``COURSE/submitted/STUDENT/ASSIGNMENT/NOTEBOOK`` one component at a time with
``openat``-style calls (``dir_fd``) and ``O_NOFOLLOW``: a symlink anywhere on that path, a FIFO, socket or
device, or a file over the size limit is refused with a reason, and the refused file is never read (a FIFO
is opened with ``O_NONBLOCK`` so that opening it cannot hang, then refused by ``fstat``). The size is
checked on the open descriptor before reading, and the read itself is bounded, so a file that grows
while it is read cannot exceed the limit either. Reasons name the path inside the course, never content.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_SUBMISSION_BYTES", "Opened", "open_in_folder", "open_submission", "refusal_of_folder"]

MAX_SUBMISSION_BYTES = 200 << 20

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True)
class Opened:
    """The bytes of a submission, or why it was not read (exactly one of the two is set)."""

    data: bytes | None
    refusal: str | None = None

    @property
    def ok(self) -> bool:
        return self.data is not None


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse_component(parent_fd: int, name: str, shown: str, want_dir: bool) -> str | None:
    """Why ``name`` (under ``parent_fd``) may not be opened, by lstat; None if it may."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return f"{shown} does not exist"
    except OSError as exc:
        return f"{shown} cannot be examined ({exc.strerror})"
    if want_dir and stat.S_ISDIR(st.st_mode):
        return None
    if not want_dir and stat.S_ISREG(st.st_mode):
        return None
    what = _kind(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return f"{shown} is a symbolic link; links are not followed (it may lead outside the course): not read"
    expected = "a folder" if want_dir else "a regular file"
    return f"{shown} is {what}, not {expected}, so it was not read"


def refusal_of_folder(course_root: str | Path, *parts: str) -> str | None:
    """Why the folder ``course_root/submitted/<parts...>`` is not a plain folder inside the course, or None."""
    fd = _open_root(course_root)
    if isinstance(fd, str):
        return fd
    try:
        shown = "submitted"
        for name in ("submitted", *parts):
            if name in ("", ".", "..") or "/" in name:
                return f"{shown}/{name} is not a plain path component"
            shown = name if name == "submitted" else f"{shown}/{name}"
            why = _refuse_component(fd, name, shown, want_dir=True)
            if why:
                return why
            nfd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
        return None
    except OSError as exc:
        return f"{shown} cannot be opened ({exc.strerror})"
    finally:
        os.close(fd)


def _open_root(course_root: str | Path) -> int | str:
    try:
        return os.open(str(Path(course_root).resolve()), _DIR_FLAGS)
    except OSError as exc:
        return f"the course folder cannot be opened ({exc.strerror})"


def open_submission(
    course_root: str | Path, student: str, assignment: str, notebook: str, limit: int = MAX_SUBMISSION_BYTES
) -> Opened:
    """The bytes of ``submitted/STUDENT/ASSIGNMENT/NOTEBOOK``, read only if every component is a real folder
    (no link) and the notebook a regular file of at most ``limit`` bytes."""
    fd = _open_root(course_root)
    if isinstance(fd, str):
        return Opened(None, fd)
    components = ["submitted", student, assignment]
    shown = ""
    try:
        for name in components:
            shown = f"{shown}/{name}" if shown else name
            if name in ("", ".", "..") or "/" in name:
                return Opened(None, f"{shown} is not a plain path component")
            why = _refuse_component(fd, name, shown, want_dir=True)
            if why:
                return Opened(None, why)
            nfd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
        shown = f"{shown}/{notebook}"
        if notebook in ("", ".", "..") or "/" in notebook:
            return Opened(None, f"{shown} is not a plain file name")
        return _read_file_at(fd, notebook, shown, limit, "the notebook", "cannot read the notebook file: {why}")
    except OSError as exc:
        return Opened(None, f"{shown} cannot be opened ({exc.strerror})")
    finally:
        os.close(fd)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _read_bounded(fd: int, shown: str, limit: int, what: str = "the notebook") -> Opened:
    st = os.fstat(fd)  # the file actually opened: a swap between lstat and open is caught here
    if not stat.S_ISREG(st.st_mode):
        return Opened(None, f"{shown} is {_kind(st.st_mode)}, not a regular file, so it was not read")
    if st.st_size > limit:
        return Opened(
            None, f"{what} is {_size(st.st_size)}, over the {_size(limit)} limit, so it was not read"
        )
    os.set_blocking(fd, True)
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            return Opened(None, f"{what} grew past the {_size(limit)} limit while it was read; not graded")
    return Opened(b"".join(chunks))


def _read_file_at(fd: int, name: str, shown: str, limit: int, what: str, unreadable: str) -> Opened:
    """``name`` in the open folder ``fd``: refused unless a regular file (never opened where opening could
    block, links never followed), then read to at most ``limit`` bytes. ``unreadable`` is the reason when
    the open itself fails (``{why}``: the system's words)."""
    why = _refuse_component(fd, name, shown, want_dir=False)
    if why:
        return Opened(None, why)
    try:
        ffd = os.open(name, _FILE_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Opened(None, f"{shown} is a symbolic link; links are not followed, so it was not read")
        return Opened(None, unreadable.format(why=exc.strerror))
    try:
        return _read_bounded(ffd, shown, limit, what=what)
    finally:
        os.close(ffd)


def open_in_folder(folder: str | Path, name: str, limit: int, shown: str | None = None) -> Opened:
    """The bytes of ``folder/name``, where ``folder`` is one of the course's own folders (resolved as the
    course's settings name it) and ``name`` a plain file name in it: the same refusals as
    :func:`open_submission` for the file itself (a symbolic link, FIFO, socket, device or folder is never
    read, nor opened where opening could block), and at most ``limit`` bytes. ``shown`` names the file in
    reasons (default: ``name``)."""
    shown = shown or name
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        return Opened(None, f"{shown} is not a plain file name")
    try:
        fd = os.open(str(Path(folder).resolve()), _DIR_FLAGS)
    except OSError as exc:
        return Opened(None, f"the folder of {shown} cannot be opened ({exc.strerror})")
    try:
        literal = shown.replace("{", "{{").replace("}", "}}")
        return _read_file_at(fd, name, shown, limit, shown, literal + " cannot be read ({why})")
    except OSError as exc:
        return Opened(None, f"{shown} cannot be opened ({exc.strerror})")
    finally:
        os.close(fd)
