"""battlelog's native engine side by side with the C++ engine (Canon-Regularis/mayflower), issue 17.

The C++ engine is not part of this repository (its code and its build stay outside, see
docs/speed.md "Against the C++ engine"): this script talks to a small driver program built from it,
given as ``--cpp PATH``, one request a line on its standard input, one answer a line on its output:

  request  <mode> <rows> <cols> <touch> <ships> L1..Ln <shots> (<row> <col> <M|H|S> <length>)*
  answer   ok <layouts> <microseconds> <sweeps> <count of cell 0> ... <count of the last cell>

``mode`` is ``marg`` (the layouts covering each cell, from the engine's forward-backward sweep; under
``none`` one constrained count per unshot cell, the engine having no no-contact marginals) or
``count`` (the number of layouts only, one sweep: a floor under any marginals it could give). A sunk
shot carries the length of the ship it sank (the C++ engine's SUNK(x, L)); length 0 is an unnamed
sink, which the driver counts as the disjoint union over the lengths the sunk ship could have. The
C++ engine has no ``diagonal`` touch rule, no ``silent`` sinks and no weighted prior in this path:
such states are skipped for it (a row says so) and timed for battlelog alone.

Every state is fed to both engines; the states of games are those of greedy (``problog`` player)
games battlelog plays on fixed-seed boards. For each row: battlelog cold (a new process with an
empty cache folder: numba's kernel loaded from its disk cache, nothing else remembered), battlelog
warm (this process, kernel loaded, the engine's memory of recent states and its disk cache of empty
boards both empty), and the C++ engine's own time for its sweeps (parsing and I/O excluded, which
favours it slightly). Warm and C++ runs are interleaved ABBA and each keeps its minimum; the ratio is
C++ / battlelog warm. Both engines must agree: battlelog's ships are distinguishable and the C++
engine's equal ships are not, so battlelog's count is the C++ count times (k - s)! for each length
held by k ships of which s were announced sunk by name (k! when sinks are unnamed); marginals to
1e-9. A disagreement is printed, never hidden.

usage:
  python experiments/bench_cpp.py --cpp /work/cpp/build/mf_driver              # every row (an hour on 2 busy cores)
  python experiments/bench_cpp.py --cpp PATH --only empty,floor --rounds 2
Prints Markdown tables to stdout and progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bench_engines import answer_child, run_child

from battlelog.errors import BattlelogError
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.answers import HIT, MISS, SUNK
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules

SCRIPT = __file__
FLEET = (5, 4, 3, 3, 2)
#: The rows measured, in this order (``--only`` picks some of them).
PARTS = ("empty", "games", "floor", "rect")
#: Marginals must agree to this.
TOLERANCE = 1e-9
#: Late states for the floor: this many layouts at least and at most (battlelog's count).
FLOOR_LAYOUTS = (20, 200)


class Unsupported(BattlelogError):
    """A state the C++ engine cannot take: a rule or prior it does not have."""


# ----- the C++ engine's input and output ---------------------------------------------------------
@dataclass(frozen=True)
class Request:
    """One request to the driver: the board, the fleet, the touch rule and the ordered shots
    (row, col, ``M``/``H``/``S``, sunk length or 0)."""

    mode: str
    rows: int
    cols: int
    touch: str
    ships: tuple[int, ...]
    shots: tuple[tuple[int, int, str, int], ...]

    def line(self) -> str:
        words = [
            self.mode,
            str(self.rows),
            str(self.cols),
            self.touch,
            str(len(self.ships)),
            *map(str, self.ships),
            str(len(self.shots)),
        ]
        for row, col, answer, length in self.shots:
            words += [str(row), str(col), answer, str(length)]
        return " ".join(words)

    @classmethod
    def parse(cls, line: str) -> Request:
        """The request a line states (the inverse of :meth:`line`), or a one-line error."""
        words = line.split()
        try:
            mode, rows, cols, touch = words[0], int(words[1]), int(words[2]), words[3]
            count = int(words[4])
            ships = tuple(int(w) for w in words[5 : 5 + count])
            at = 5 + count
            shots = tuple(
                (int(words[i]), int(words[i + 1]), words[i + 2], int(words[i + 3]))
                for i in range(at + 1, at + 1 + 4 * int(words[at]), 4)
            )
            if len(ships) != count or at + 1 + 4 * len(shots) != len(words):
                raise ValueError
        except (IndexError, ValueError):
            raise BattlelogError(f"not a request to the C++ driver: {line[:80]!r}") from None
        return cls(mode, rows, cols, touch, ships, shots)


def to_request(state: GameState, mode: str = "marg") -> Request:
    """The request for ``state``: named sinks become the sunk ship's length, unnamed ones length 0."""
    config = state.config
    if config.rules.touch not in ("allowed", "none"):
        raise Unsupported(f"the C++ engine has no touch rule {config.rules.touch!r}")
    if config.rules.sinks == "silent":
        raise Unsupported("the C++ engine has no silent sinks (its SUNK is always announced)")
    if not config.prior.is_uniform:
        raise Unsupported("the C++ engine's counting path weighs no prior")
    shots = []
    for shot in state.shots:
        if shot.result == MISS:
            shots.append((shot.row, shot.col, "M", 0))
        elif shot.result == HIT:
            shots.append((shot.row, shot.col, "H", 0))
        else:
            shots.append((shot.row, shot.col, "S", 0 if shot.ship is None else config.ships[shot.ship]))
    return Request(mode, config.rows, config.cols, config.rules.touch, config.ships, tuple(shots))


@dataclass(frozen=True)
class Answer:
    """The driver's answer: layouts (equal ships not told apart), its own time, sweeps run, and the
    layouts covering each cell (row-major; None when only counted)."""

    layouts: int
    seconds: float
    sweeps: int
    covering: np.ndarray | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, line: str, rows: int, cols: int) -> Answer:
        words = line.split()
        if not words or words[0] != "ok":
            raise BattlelogError(f"the C++ driver answered: {line.strip()[:160] or 'nothing'}")
        try:
            layouts, micros, sweeps = int(words[1]), int(words[2]), int(words[3])
            cells = [int(w) for w in words[4:]]
        except (IndexError, ValueError):
            raise BattlelogError(f"not an answer of the C++ driver: {line[:80]!r}") from None
        if len(cells) != rows * cols:
            raise BattlelogError(f"the C++ driver gave {len(cells)} cells for a {rows}x{cols} board")
        covering = np.array(cells, dtype=np.float64).reshape(rows, cols) if any(cells) else None
        return cls(layouts, micros / 1e6, sweeps, covering)


def label_factor(state: GameState) -> int:
    """battlelog's layouts per C++ layout: equal ships are told apart by battlelog only, except
    those a named sink has labelled."""
    named = state.config.rules.sinks == "named"
    factor = 1
    for length in set(state.ships):
        equal = state.ships.count(length)
        sunk = sum(
            1
            for shot in state.shots
            if named and shot.result == SUNK and shot.ship is not None and state.ships[shot.ship] == length
        )
        factor *= math.factorial(equal - sunk)
    return factor


def agreement(state: GameState, layouts: int | None, cells: np.ndarray, cpp: Answer) -> tuple[bool, float | None]:
    """(the counts match, the largest marginal difference or None when the C++ engine only counted)."""
    same = layouts == cpp.layouts * label_factor(state)
    if cpp.covering is None or cpp.layouts == 0:
        return same, None
    return same, float(np.max(np.abs(cells - cpp.covering / cpp.layouts)))


def binary_problem(path: str | None) -> str | None:
    """Why ``--cpp`` cannot be run (one line), or None."""
    if not path:
        return "give the C++ driver with --cpp PATH (built outside the repository, see docs/speed.md)"
    if not Path(path).is_file():
        return f"--cpp {path}: no such file (build the C++ driver first, see docs/speed.md)"
    if not os.access(path, os.X_OK):
        return f"--cpp {path}: not executable"
    return None


class CppEngine:
    """The driver as a child process, kept open: one request and one answer at a time."""

    def __init__(self, path: str) -> None:
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, state: GameState, mode: str = "marg") -> Answer:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(to_request(state, mode).line() + "\n")
        self.process.stdin.flush()
        return Answer.parse(self.process.stdout.readline(), state.rows, state.cols)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


# ----- battlelog's side --------------------------------------------------------------------------
def battlelog_run(states: Sequence[GameState], reuse: bool = True) -> tuple[float, list[tuple[int | None, np.ndarray]]]:
    """Seconds for one marginals call per state, each computed (a fresh workspace over an empty cache
    folder, its recent states' marginals forgotten before every call). ``reuse``: the engine may answer
    a state a few shots on from the listed layouts of one asked before (states in game order), else
    nothing is remembered from one call to the next."""
    from battlelog.engines.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="battlelog-bench-cpp-") as folder:
        workspace = Workspace(cache_dir=Path(folder))
        engine = workspace.engine("native")
        engine.reuse = reuse  # type: ignore[attr-defined]  # the native engine's
        took, out = 0.0, []
        for state in states:
            workspace.states.clear()
            start = time.perf_counter()
            marginals = engine.marginals(state)
            took += time.perf_counter() - start
            out.append((marginals.models, marginals.cells))
        workspace.close()
    return took, out


def child(task: dict[str, Any]) -> dict[str, Any]:
    """Cold: the states' marginals in a new process (kernel and modules loaded on first use)."""
    states = [GameState.from_json(data) for data in json.loads(Path(task["states"]).read_text())]
    took, _ = battlelog_run(states, task.get("reuse", True))
    return {"seconds": took}


def battlelog_cold(states: Sequence[GameState], limit: float, reuse: bool = True) -> float | None:
    with tempfile.TemporaryDirectory(prefix="battlelog-bench-cpp-") as folder:  # a game's states are too long for argv
        path = Path(folder) / "states.json"
        path.write_text(json.dumps([s.to_json() for s in states]))
        found = run_child({"states": str(path), "reuse": reuse}, limit, SCRIPT)
    return found.get("seconds")


def greedy_games(config: GameConfig, games: int, seed: int) -> list[list[GameState]]:
    """The states the greedy player saw (the empty board first) in ``games`` fixed-seed games."""
    from battlelog.engines.workspace import Workspace
    from battlelog.players import make_player
    from battlelog.runner.loop import play_game
    from battlelog.runner.seeds import game_seeds, layout_for

    out = []
    with tempfile.TemporaryDirectory(prefix="battlelog-bench-cpp-") as folder:
        workspace = Workspace(cache_dir=Path(folder))
        for game in range(games):
            seen = [GameState.empty(config)]
            player = make_player("problog", game_seeds(seed, game)[1])
            player.use(workspace)
            play_game(config, layout_for(config, seed, game), player, on_shot=seen.append)
            out.append(seen[:-1])
        workspace.close()
    return out


# ----- one row -----------------------------------------------------------------------------------
@dataclass
class Row:
    """What one row measured."""

    label: str
    states: int
    cold: float | None = None
    warm: float = math.inf
    cpp: float | None = None
    cpp_mode: str = "marg"
    counts_ok: int = 0
    counts_checked: int = 0
    worst: float | None = None
    load: float = 0.0
    note: str = ""

    def cells(self) -> list[str]:
        per = "" if self.states == 1 else f" ({self.states})"
        ratio = "-" if self.cpp is None else times(self.cpp / self.warm)
        cold_ratio = "-" if self.cpp is None or self.cold is None else times(self.cpp / self.cold)
        agree = "-" if not self.counts_checked else f"{self.counts_ok}/{self.counts_checked}"
        worst = "-" if self.worst is None else f"{self.worst:.1e}"
        cpp = "n/a" if self.cpp is None else duration(self.cpp) + ("" if self.cpp_mode == "marg" else " (count only)")
        return [
            self.label + per,
            duration(self.cold),
            duration(self.warm),
            cpp,
            ratio,
            cold_ratio,
            agree,
            worst,
            f"{self.load:.1f}",
            self.note,
        ]


def times(ratio: float) -> str:
    """``17x``, ``3.3x``, ``0.28x``: two significant digits below 10."""
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


HEADER = [
    "what (states)",
    "battlelog cold",
    "battlelog warm",
    "C++",
    "C++ / warm",
    "C++ / cold",
    "counts agree",
    "max marginal diff",
    "load",
    "note",
]


def measure(
    label: str,
    states: Sequence[GameState],
    cpp: CppEngine | None,
    mode: str,
    rounds: int,
    limit: float,
    cold: bool = True,
    per_state: bool = False,
    reuse: bool = True,
) -> Row:
    """ABBA rounds of battlelog warm against the C++ engine on ``states`` (the sum over them, or the
    mean with ``per_state``), battlelog cold once per round, and the agreement of the two; ``reuse``:
    battlelog's engine may answer a state from the listed layouts of one before it (game order)."""
    row = Row(label, len(states), load=os.getloadavg()[0], cpp_mode=mode)
    scale = 1 / len(states) if per_state else 1.0
    try:
        for state in states:
            to_request(state, mode)
    except Unsupported as exc:
        cpp, row.note = None, str(exc)
    results: list[tuple[int | None, np.ndarray]] = []

    def ours() -> None:
        nonlocal results
        took, results = battlelog_run(states, reuse)
        row.warm = min(row.warm, took * scale)

    def theirs() -> None:
        assert cpp is not None
        answers = [cpp.ask(s, mode) for s in states]
        took = sum(a.seconds for a in answers) * scale
        row.cpp = took if row.cpp is None else min(row.cpp, took)
        if row.counts_checked:
            return
        for state, (layouts, cells), answer in zip(states, results, answers):
            same, diff = agreement(state, layouts, cells, answer)
            row.counts_checked += 1
            row.counts_ok += same
            if diff is not None:
                row.worst = diff if row.worst is None else max(row.worst, diff)

    order: list[Callable[[], None]] = [ours, theirs] if cpp is not None else [ours]
    for r in range(rounds):
        for run in order if r % 2 == 0 else order[::-1]:
            if run is theirs and not results:
                ours()
            run()
        if cold:
            took = battlelog_cold(states, limit, reuse)
            if took is not None:
                row.cold = took * scale if row.cold is None else min(row.cold, took * scale)
    print(f"  {label}: " + " | ".join(row.cells()[1:8]), file=sys.stderr, flush=True)
    return row


# ----- the rows ----------------------------------------------------------------------------------
def empty_rows(cpp: CppEngine, args: argparse.Namespace) -> list[Row]:
    rows = []
    for touch in ("allowed", "diagonal", "none"):
        state = GameState.empty(GameConfig(10, FLEET, Rules(touch=touch)))
        name = f"empty 10x10, touch {touch}"
        rows.append(
            measure(name, [state], cpp, "count" if touch == "none" and not args.full_none else "marg", args.rounds, args.limit)
        )
    return rows


VARIANTS = (
    ("allowed", "named"),
    ("allowed", "unnamed"),
    ("none", "named"),
    ("none", "unnamed"),
    ("diagonal", "named"),
    ("allowed", "silent"),
)


def game_rows(cpp: CppEngine, args: argparse.Namespace, played: dict[tuple[str, str], list[list[GameState]]]) -> list[Row]:
    rows = []
    for touch, sinks in played:
        games = played[(touch, sinks)]
        mid = [game[len(game) // 2] for game in games]
        mode = "count" if touch == "none" else "marg"
        mid_mode = "marg" if args.full_none else mode
        rows.append(measure(f"mid-game state, {touch}/{sinks}", mid, cpp, mid_mode, args.rounds, args.limit, per_state=True))
        states = [s for game in games for s in game]
        row = measure(f"{len(games)} greedy games, {touch}/{sinks}", states, cpp, mode, args.game_rounds, args.limit * len(games))
        row.label += f", {np.mean([len(g) + 1 for g in games]):.1f} shots"
        rows.append(row)
    return rows


def floor_rows(cpp: CppEngine, args: argparse.Namespace, played: dict[tuple[str, str], list[list[GameState]]]) -> list[Row]:
    """The late states (20 to 200 layouts) of the standard games, per call: in game order (each state a few
    shots on from one asked before is answered from its listed layouts: the first of each game is not)
    and each alone (no reuse); and the one nearest 84 layouts, alone, 20 times."""
    rows = []
    for touch in ("allowed", "none"):
        states = [s for game in played.get((touch, "named"), []) for s in game]
        _, found = battlelog_run(states)
        late = [(s, m) for s, (m, _) in zip(states, found) if m is not None and FLOOR_LAYOUTS[0] <= m <= FLOOR_LAYOUTS[1]]
        if not late:
            continue
        for reuse in (True, False):
            label = f"late states, {touch}/named, per call, " + ("in game order" if reuse else "each alone")
            rows.append(
                measure(label, [s for s, _ in late], cpp, "marg", args.floor_rounds, args.limit, per_state=True, reuse=reuse)
            )
        if touch == "allowed":
            near = min(late, key=lambda pair: abs((pair[1] or 0) - 84))
            row = measure(
                f"the late state nearest 84 layouts ({near[1]}), per call",
                [near[0]] * 20,
                cpp,
                "marg",
                args.floor_rounds,
                args.limit,
                cold=False,
                per_state=True,
                reuse=False,  # else each repeat would be answered from the listing of the one before
            )
            row.states = 1
            rows.append(row)
    return rows


def rect_rows(cpp: CppEngine, args: argparse.Namespace) -> list[Row]:
    rows = []
    for touch in ("allowed", "none"):
        state = GameState.empty(GameConfig(12, FLEET, Rules(touch=touch), cols=10))
        rows.append(
            measure(
                f"empty 12x10, touch {touch}",
                [state],
                cpp,
                "count" if touch == "none" and not args.full_none else "marg",
                args.rounds,
                args.limit,
            )
        )
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpp", help="the C++ driver program (built outside the repository)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"rows to measure, of {','.join(PARTS)}")
    parser.add_argument(
        "--variants",
        default=",".join(f"{t}/{s}" for t, s in VARIANTS),
        help="rule variants (touch/sinks) whose games are played, for the games and floor rows",
    )
    parser.add_argument("--games", type=int, default=3, help="greedy games per rule variant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2, help="ABBA rounds for single states (minima kept)")
    parser.add_argument(
        "--game-rounds", type=int, default=1, help="rounds for whole games (the C++ side of a game takes minutes)"
    )
    parser.add_argument("--floor-rounds", type=int, default=4, help="ABBA rounds for the late states")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds before a cold battlelog child is stopped")
    parser.add_argument(
        "--full-none",
        action="store_true",
        help="no-contact empty boards and mid-game states: the C++ marginals (one count per cell, long) instead of its count",
    )
    args = parser.parse_args(argv)
    problem = binary_problem(args.cpp)
    unknown = set(args.only.split(",")) - set(PARTS)
    if problem is None and unknown:
        problem = f"--only: unknown part {sorted(unknown)[0]!r} (choose among {','.join(PARTS)})"
    variants = [tuple(v.split("/")) for v in args.variants.split(",")]
    if problem is None and any(v not in VARIANTS for v in variants):
        problem = f"--variants: each of touch/sinks among {','.join(f'{t}/{s}' for t, s in VARIANTS)}"
    for name in ("games", "rounds", "game_rounds", "floor_rounds"):
        if problem is None and getattr(args, name) < 1:
            problem = f"--{name.replace('_', '-')} must be at least 1"
    if problem is not None:
        parser.exit(2, f"bench_cpp.py: {problem}\n")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from battlelog.engines.native import jit

    jit.kernels(10**6)  # the compiled kernel loaded before any warm clock
    parts = set(args.only.split(","))
    cpp = CppEngine(args.cpp)
    print(
        f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores", file=sys.stderr
    )
    rows: list[Row] = []
    try:
        played: dict[tuple[str, str], list[list[GameState]]] = {}
        if parts & {"games", "floor"}:
            for touch, sinks in [tuple(v.split("/")) for v in args.variants.split(",")]:
                played[(touch, sinks)] = greedy_games(
                    GameConfig(10, FLEET, Rules(touch=touch, sinks=sinks)), args.games, args.seed
                )
        if "empty" in parts:
            rows += empty_rows(cpp, args)
        if "floor" in parts:
            rows += floor_rows(cpp, args, played)
        if "games" in parts:
            rows += game_rows(cpp, args, played)
        if "rect" in parts:
            rows += rect_rows(cpp, args)
    finally:
        cpp.close()
        print(markdown_table(HEADER, [row.cells() for row in rows], align="lrrrrrrrrl"), file=sys.stderr)
    print(markdown_table(HEADER, [row.cells() for row in rows], align="lrrrrrrrrl"))
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.exit(answer_child(sys.argv[2], child))
    sys.exit(main())
