"""This process's memory, read from the operating system: the one place that knows how.

Linux keeps a resident-memory high-water mark per process (VmHWM in /proc/self/status), and writing
5 to /proc/self/clear_refs resets it to the current resident size, so a long-lived worker can
measure each game's peak on its own. Where /proc is missing, ``ru_maxrss`` gives the peak over the
process's whole life: an upper bound. VmHWM, not ru_maxrss, is also what a child process must read:
Linux carries a parent's ru_maxrss over fork and exec.
"""

from __future__ import annotations

import resource
import sys


def status_bytes(key: str) -> int | None:
    """A ``kB`` field of /proc/self/status (VmHWM, VmRSS, VmSize, ...) in bytes; None where unavailable."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def reset_peak() -> bool:
    """Restart the high-water mark from the current resident size; False where the OS does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def peak_bytes(since_reset: bool = True) -> int:
    """Peak resident memory: since the last :func:`reset_peak` when it worked, else over the process's life."""
    if since_reset:
        hwm = status_bytes("VmHWM")
        if hwm is not None:
            return hwm
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * 1024


def oom_kills() -> int | None:
    """How many processes the kernel's OOM killer has killed in this process's memory cgroup (v2
    ``memory.events`` or v1 ``memory.oom_control``); None where no such count is readable.

    A worker killed by SIGKILL while this count rose was most likely killed for memory; without that
    trace, something else killed it.
    """
    try:
        with open("/proc/self/cgroup") as groups:
            lines = [line.rstrip("\n").split(":", 2) for line in groups]
    except OSError:
        return None
    candidates = []
    for _, controllers, path in (line for line in lines if len(line) == 3):
        if controllers == "":
            candidates.append(f"/sys/fs/cgroup{path.rstrip('/')}/memory.events")
        elif "memory" in controllers.split(","):
            candidates.append(f"/sys/fs/cgroup/memory{path.rstrip('/')}/memory.oom_control")
    for candidate in candidates:
        try:
            with open(candidate) as events:
                for line in events:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def megabytes(size: int) -> float:
    """Bytes as MB (2**20) with one decimal, as game records store peak memory."""
    return round(size / 2**20, 1)


__all__ = ["megabytes", "oom_kills", "peak_bytes", "reset_peak", "status_bytes"]
