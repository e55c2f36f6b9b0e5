"""Fork-server preload entry, always first: the server ignores SIGTERM (see :mod:`.preload`).

A SIGTERM to the whole process group (how the local deployer stops a service) must not take the fork
server down before the replicas it forked: it reaps them, and leaves once its supervisor has gone.
Each replica sets its own SIGTERM handler first thing (:func:`.procs.child_setup`).
"""

import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
