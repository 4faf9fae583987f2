"""The grading kernel's first code, run as ``python -c <this file> <config> -f <connection file>``.

It installs an audit hook (PEP 578: once added, Python code cannot remove it) and then starts ipykernel as
``python -m ipykernel_launcher`` would. The hook notes, in a file only the grader can open (the kernel holds
an inherited descriptor to it, named in the config), every attempt by code in the kernel to

- open a path the sandbox does not show (``/etc/passwd``, another course, ``/var/tmp``...: it does not
  exist inside), or list such a folder outside the system's own;
- open a path it shows but does not let the kernel read (another process's ``/proc`` entries);
- open for writing a path where the sandbox is read-only;
- reach the network (a socket connect or send to an address, a name lookup);
- start more processes than the limit;

so that a denial the student's code catches (``try: open(...) except OSError: pass``) is still in the
record. It never raises into the code it watches and never blocks it; it does not see what C code does
on its own (a student who closes the descriptor stops the notes from then on — what was noted stays).

Imports only the standard library: it runs before anything else in the sandbox.
"""

import json
import os
import sys


def _install(cfg: dict) -> None:  # type: ignore[type-arg]
    fd = int(cfg["fd"])
    visible = tuple(str(p).rstrip("/") or "/" for p in cfg["visible"])
    searched = tuple(os.path.abspath(p) for p in sys.path if p)  # the interpreter's own lookups
    # libraries list the system's folders for what they may hold (fonts, config): a listing there is not
    # an attempt to read what the sandbox hides; an open of a file there is still noted
    system = ("/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin", "/sys", "/proc", "/dev", "/run")
    forks_allowed = int(cfg.get("forks") or 0)
    mount = str(cfg.get("mount") or "/tmp/.notebook")
    # what is bound inside the private /tmp (the notebook, a Python environment that lives under /tmp):
    # a file missing there is just missing; elsewhere in /tmp it may be one of the machine's, hidden
    shown_in_tmp = (mount, *(v for v in visible if v.startswith("/tmp/")))
    state = {"left": 200, "missed": 100, "forks": 0}
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def under(p: str, roots: tuple) -> bool:  # type: ignore[type-arg]
        return any(p == r or p.startswith(r + "/") for r in roots)

    def note(what: str, target: object) -> None:
        budget = "missed" if what == "missing" else "left"
        if state[budget] <= 0:
            return
        state[budget] -= 1
        try:
            os.write(fd, (json.dumps({"what": what, "path": str(target)[:300]}) + "\n").encode())
        except Exception:
            state["left"] = 0

    def path_of(arg: object) -> str | None:
        if isinstance(arg, int) or arg is None:
            return None
        try:
            return os.path.abspath(os.fsdecode(arg))  # type: ignore[arg-type]
        except Exception:
            return None

    def hook(event: str, args: tuple) -> None:  # type: ignore[type-arg]
        try:
            if event == "open":
                p = path_of(args[0])
                if p is None:
                    return
                mode, flags = args[1], args[2] if len(args) > 2 else 0
                writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                    isinstance(flags, int) and flags & write_flags
                )
                # stat and access raise no audit event: the hook may look before the open does
                if not os.path.lexists(p):
                    if not under(p, visible):
                        note("outside the sandbox", p)
                    elif not writing and under(p, ("/tmp",)) and not under(p, shown_in_tmp):
                        note("missing", p)  # the grader checks whether the machine's /tmp has it
                    elif writing and not os.access(os.path.dirname(p) or "/", os.W_OK):
                        note("write where it is read-only", p)
                elif writing and not os.access(p, os.W_OK):
                    note("write where it is read-only", p)
                elif not writing and not os.access(p, os.R_OK):
                    note("not readable", p)
            elif event in ("os.listdir", "os.scandir"):
                p = path_of(args[0]) if args else None
                if p is None or os.path.lexists(p):
                    return
                if not under(p, visible + searched + system):
                    note("outside the sandbox", p)
                elif under(p, ("/tmp",)) and not under(p, shown_in_tmp):
                    note("missing", p)
            elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
                address = args[1] if len(args) > 1 else None
                if isinstance(address, tuple):
                    note("network", address[0] if address else "?")
                elif isinstance(address, (str, bytes)):
                    p = path_of(address)
                    if p is not None and not under(p, visible):
                        note("outside the sandbox", p)
            elif event == "socket.getaddrinfo":
                host = args[0] if args else None
                if host not in (None, "", "localhost", "127.0.0.1", "::1"):
                    note("network", host)
            elif event in ("os.fork", "os.forkpty", "subprocess.Popen", "os.posix_spawn", "os.system"):
                state["forks"] += 1
                if forks_allowed and state["forks"] == forks_allowed:
                    note("process limit", f"{forks_allowed} processes started")
        except Exception:
            return

    sys.addaudithook(hook)


if __name__ == "__main__":
    _install(json.loads(sys.argv.pop(1)))
    del _install
    if sys.path and (sys.path[0] == "" or os.path.abspath(sys.path[0]) == os.getcwd()):
        del sys.path[0]  # as ipykernel_launcher does; InteractiveShellApp adds it back
    # after the sandbox has set sys.path and the limits: the kernel itself starts here
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()
