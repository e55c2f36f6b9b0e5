"""What every child process of the service does first: die with its supervisor, leave Ctrl-C to it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def child_setup(parent_pid: int, *, forked: bool = False) -> None:
    """Get SIGKILL when the supervisor dies; ignore SIGINT (the supervisor stops children with SIGTERM).

    ``forked``: the process was forked by the supervisor's fork server, its parent, which exits when the
    supervisor does (and so kills it)."""
    parent = os.getppid() if forked else parent_pid
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # exit at once: a child owns no state to flush (shared memory belongs to the supervisor), and a second
    # SIGTERM (the process group's, then the supervisor's) must not land in interpreter teardown
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    with contextlib.suppress(OSError, AttributeError):  # not Linux: rely on pipe EOF
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent or not _alive(parent_pid):  # the supervisor died before prctl took effect
        sys.exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True
