"""The opening book: the exact answers to the early states of a game advised from its empty board.

Advice that follows the suggestions from an empty board visits a small tree of states: the suggested
cell, then a miss, a hit or a sink of one of the ships afloat, then the next suggestion, and so on.
Those early states are the expensive ones (0.1 to 1 s each on 10x10, against milliseconds later in
the game) and every adviser meets them, so the server computes the tree to :data:`DEPTH` shots once,
in the background, with the same call that answers a request (:func:`battlelog.web.advise.computed`),
and keeps it on disk next to the native engine's empty boards (``~/.cache/battlelog/web-book-v2/``), with the states it refused.

A file is used only if it was written by the same battlelog source (a digest of every module of the
package, so any change of the engine, the rules or the advice discards it), the same engine and the
same board; anything else, or a damaged file, is ignored and the book recomputed.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import itertools
import json
import os
from collections.abc import Awaitable, Callable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import battlelog
from battlelog.cachedir import cache_dir
from battlelog.errors import BattlelogError
from battlelog.rules.answers import HIT, MISS, SUNK
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, UNNAMED

#: Bump when what a book file holds changes.
FORMAT = 2
#: How many states the book holds by default (``battlelog serve --book``), the most likely first
#: (chosen by measurement: docs/web.md, "Load").
SIZE = 4000
#: How often (states) a book being built is written to disk.
SAVE_EVERY = 100


@cache
def source_digest() -> str:
    """A digest of every module of the installed battlelog and of the numeric libraries' versions."""
    digest = hashlib.sha256()
    root = Path(battlelog.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    for package in ("numpy", "numba"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()


def meta(config: GameConfig, engine: str) -> dict[str, Any]:
    return {"format": FORMAT, "source": source_digest(), "engine": engine, "board": GameState.empty(config).to_json()}


def book_path(config: GameConfig, engine: str, directory: Path | None = None) -> Path:
    name = hashlib.sha256(json.dumps([engine, GameState.empty(config).to_json()]).encode()).hexdigest()[:16]
    return (directory or cache_dir()) / f"web-book-v{FORMAT}" / f"{engine}-{config.shape}-{name}.json"


def load(config: GameConfig, engine: str, directory: Path | None = None) -> tuple[dict[str, bytes], set[str]]:
    """The book's answers on disk by answer key, and the keys of the states the engine refused (a
    contradiction: a sink the hits cannot make); nothing when there is none, or it is stale or damaged."""
    try:
        data = json.loads(book_path(config, engine, directory).read_text())
    except (OSError, ValueError):
        return {}, set()
    if not isinstance(data, dict) or data.get("meta") != meta(config, engine):
        return {}, set()
    answers, refused = data.get("answers"), data.get("refused")
    if not isinstance(answers, dict) or not isinstance(refused, list) or not all(isinstance(key, str) for key in refused):
        return {}, set()
    if not all(isinstance(key, str) and isinstance(value, str) for key, value in answers.items()):
        return {}, set()
    return {key: value.encode() for key, value in answers.items()}, set(refused)


def save(config: GameConfig, engine: str, answers: dict[str, bytes], refused: set[str], directory: Path | None = None) -> None:
    """Write atomically; a book that cannot be written is not an error (the server computes it again)."""
    path = book_path(config, engine, directory)
    text = json.dumps(
        {
            "meta": meta(config, engine),
            "answers": {key: value.decode() for key, value in answers.items()},
            "refused": sorted(refused),
        }
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(text)
        scratch.replace(path)
    except OSError:
        return


def following(state: GameState, answer: bytes, chance: float) -> list[tuple[float, GameState]]:
    """The states an adviser can reach from ``state`` (reached with probability ``chance``) by
    answering its suggestion: a miss, a hit, or a sink (of each ship afloat, under named sinks) where
    enough hits are there for one; each with an estimate of its probability (the suggested cell's
    chance of a ship for a hit or a sink, the rest for a miss)."""
    data = json.loads(answer)
    suggest = data["suggest"]
    if suggest is None:
        return []
    row, col = suggest["row"], suggest["col"]
    hit = float(data["cells"][row][col])
    answers: list[tuple[str, int | None]] = [(MISS, None), (HIT, None)]
    hits = len(state.hits) + 1
    if state.config.rules.sinks == NAMED:
        answers += [(SUNK, ship) for ship in state.afloat if state.config.ships[ship] <= hits]
    elif state.config.rules.sinks == UNNAMED and min(state.config.ships[s] for s in state.afloat) <= hits:
        answers.append((SUNK, None))
    out = []
    for result, ship in answers:
        try:
            out.append((chance * (1.0 - hit if result == MISS else hit), state.with_shot(row, col, result, ship)))
        except BattlelogError:
            continue
    return out


async def build(
    config: GameConfig,
    size: int,
    answer: Callable[[GameState], Awaitable[bytes]],
    parallel: int,
    saved: Callable[[], None] = lambda: None,
) -> None:
    """Answer the ``size`` most likely states of the tree from ``config``'s empty board, most likely
    first, ``parallel`` at a time; ``answer`` is the server's (remembered) answer to a state, and
    ``saved`` is called after every :data:`SAVE_EVERY` states and at the end.

    A state's probability is exact once it is answered (its parent's times its layouts over its
    parent's: the prior is uniform over layouts) and estimated before (:func:`following`), which
    orders the queue. A state the engine refuses (a contradiction) is a leaf, and does not count."""
    # (minus the estimate, order of arrival, state, its parent's probability and layouts)
    heap: list[tuple[float, int, GameState, float, int | None]] = [(-1.0, 0, GameState.empty(config), 1.0, None)]
    arrival = itertools.count(1)
    done = 0

    async def one(
        state: GameState, parent_chance: float, parent_models: int | None
    ) -> list[tuple[float, GameState, float, int | None]] | None:
        try:
            text = await answer(state)
        except BattlelogError:
            return None
        models = json.loads(text)["models"]
        chance = parent_chance * models / parent_models if models and parent_models else parent_chance
        return [(estimate, child, chance, models) for estimate, child in following(state, text, chance)]

    while heap and done < size:
        batch = [heapq.heappop(heap) for _ in range(min(parallel, len(heap), size - done))]
        found = await asyncio.gather(*(one(state, chance, models) for _, _, state, chance, models in batch))
        for children in found:
            done += children is not None
            for estimate, child, chance, models in children or ():
                heapq.heappush(heap, (-estimate, next(arrival), child, chance, models))
        if done % SAVE_EVERY < len(batch) or not heap or done >= size:
            saved()
