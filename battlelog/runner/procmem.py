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


def megabytes(size: int) -> float:
    """Bytes as MB (2**20) with one decimal, as game records store peak memory."""
    return round(size / 2**20, 1)


__all__ = ["megabytes", "peak_bytes", "reset_peak", "status_bytes"]
