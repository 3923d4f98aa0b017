"""Limits counted in the CPU time a submission used, not in wall-clock time.

A machine busy with other work (a class on the same server, another batch) stretches a submission's
wall-clock time, not the CPU time its kernel uses: counted in CPU seconds, the same answer gets the same
mark whatever else the machine is doing. The grader reads that time itself, from the host's ``/proc``
(never from the student's process). Sleeping costs no CPU, so every limit also ends, as a backstop,
after ``WALL_FACTOR`` times as many seconds of wall-clock time.
"""

import os
import time
from pathlib import Path

import psutil

WALL_FACTOR = 10
_TICKS = os.sysconf("SC_CLK_TCK")


def host_pid(ancestor, pid):
    """The host's pid of the process that is ``pid`` in the PID namespace of ``ancestor``'s children, or None.

    The sealed kernel's supervisor reports the kernel's pid as its own namespace (bubblewrap's) numbers it;
    ``/proc/<pid>/status`` lists a process's pid in every namespace it is in, the host's first.
    """
    try:
        descendants = psutil.Process(ancestor).children(recursive=True)
    except psutil.Error:
        return None
    for process in descendants:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            continue
        numbers = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
        if len(numbers) > 1 and numbers[1] == str(pid):
            return process.pid
    return None


class CpuClock:
    """Seconds of CPU a process has used (its threads and the children it waited for), read from ``/proc``.

    Without the process's ``/proc`` entry (``pid`` None), it is the wall clock: the limits are then as long
    in wall-clock time as they say.
    """

    def __init__(self, pid):
        self.stat = None if pid is None else Path(f"/proc/{pid}/stat")
        self.last = 0.0

    def __call__(self):
        if self.stat is None:
            return time.monotonic()
        try:
            fields = self.stat.read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return self.last  # the process has ended: it uses no more
        self.last = sum(int(value) for value in fields[11:15]) / _TICKS  # utime, stime, cutime, cstime
        return self.last


def patience(clock, limit, wall_ends, started=None):
    """For :meth:`autograder.bridge.peer.Peer.request`: after ``limit`` seconds of waiting, more seconds to wait while
    the process behind ``clock`` has used less than ``limit`` seconds of CPU since ``started`` (now, if None)
    and ``wall_ends`` (a ``time.monotonic()`` value) has not come."""
    started = clock() if started is None else started

    def more():
        left = min(limit - (clock() - started), wall_ends - time.monotonic())
        return max(left, 0.05) if left > 0 else 0

    return more
