"""Start-up cost of battlelog's quick commands: CPU seconds (user + system) of each, best of N runs, beside
the cost of importing numpy alone in the same conditions (the floor of every command that reads a state).

    python experiments/bench_startup.py --runs 6

Bytecode is cached in a scratch folder (as an installed package's is), and compiled templates in a scratch
cache folder, so the first run of each command warms them and the best of the rest is what a user pays.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STATE = str(Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "midgame_5x5.json")
COMMANDS = {
    "import numpy": ["-c", "import numpy"],
    "battlelog --help": ["-m", "battlelog.cli", "--help"],
    "battlelog script": ["-m", "battlelog.cli", "script", STATE],
    "battlelog marginals": ["-m", "battlelog.cli", "marginals", STATE],
    "battlelog captain --help": ["-m", "battlelog.cli", "captain", "--help"],
}


def cpu_seconds(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds of ``python ARGS`` and its children, which must succeed."""
    before = os.times()
    subprocess.run([sys.executable, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6, help="runs per command (the best is shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPYCACHEPREFIX=str(Path(scratch) / "pycache"), BATTLELOG_CACHE_DIR=str(Path(scratch) / "cache"))
        print(f"{'command':<26} {'best CPU s':>10} {'median CPU s':>12}")
        for name, command in COMMANDS.items():
            cpu_seconds(command, env)  # warm the bytecode and template caches
            times = sorted(cpu_seconds(command, env) for _ in range(max(1, args.runs)))
            print(f"{name:<26} {times[0]:10.3f} {times[len(times) // 2]:12.3f}")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
