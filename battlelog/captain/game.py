"""One captain's game on one true board, as one JSON record.

The game's random numbers come from (seed, board file name, game number) alone, never from the
captain: the spotter's noise draws (one per question the game allows) and the generator that breaks
ties between cells. Every captain meets the same spotter in game g of a board: paired comparisons.
The game ends when every ship tile is revealed (won) or the shots run out.
"""

from __future__ import annotations

import statistics
import time
import zlib
from typing import Any

import numpy as np

from battlelog.captain.belief import Belief
from battlelog.captain.boards import TrueBoard
from battlelog.captain.captains import Ask, Captain
from battlelog.captain.spotter import Spotter
from battlelog.questions.space import DEFAULT_BUDGET


def game_streams(seed: int, board: str, game: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The spotter's noise generator and the tie-breaking generator of game ``game`` on ``board``."""
    noise, ties = np.random.SeedSequence([seed, zlib.crc32(board.encode()), game]).spawn(2)
    return np.random.default_rng(noise), np.random.default_rng(ties)


def f1_score(hits: int, shots: int, tiles: int) -> float:
    """F1 of the shots: precision hits / shots, recall hits / ship tiles (0 without a hit)."""
    if hits == 0:
        return 0.0
    precision, recall = hits / shots, hits / tiles
    return 2 * precision * recall / (precision + recall)


def play_game(
    board: TrueBoard, captain: Captain, *, game: int, seed: int, shots: int = 40, questions: int = 15,
    noise: float = 0.1, budget: int = DEFAULT_BUDGET,
) -> dict[str, Any]:
    """Play one game; the record holds the counts, F1, the transcript and the time per move."""
    noise_rng, ties = game_streams(seed, board.name, game)
    spotter = Spotter(board, noise, noise_rng.random(questions))
    belief = Belief(board.rows, board.cols, board.names, board.lengths, noise, budget)
    transcript: list[dict[str, Any]] = []
    seconds: list[float] = []
    fired = hits = asked = 0
    started = time.perf_counter()
    while fired < shots and hits < board.ship_tiles:
        tick = time.perf_counter()
        move = captain.move(belief, questions - asked, ties)
        seconds.append(time.perf_counter() - tick)
        if isinstance(move, Ask):
            reply = spotter.answer(move.program)
            belief.hear(move.program, reply.given_answer)
            asked += 1
            transcript.append(
                {"question": move.program.text, "true_answer": reply.true_answer, "given_answer": reply.given_answer,
                 "eig": move.eig}
            )  # fmt: skip
            continue
        code = spotter.shoot(move.cell)
        belief.shoot(move.cell, code)
        fired += 1
        hits += code > 0
        shown = "water" if code == 0 else board.names[code - 1]
        transcript.append({"shot": [move.cell // board.cols, move.cell % board.cols], "answer": shown})
    return {
        "captain": captain.label, "player": captain.label, "board": board.name, "game": game, "seed": seed,
        "noise": noise, "status": "ok", "shots": fired, "hits": hits, "misses": fired - hits, "questions": asked,
        "f1": f1_score(hits, fired, board.ship_tiles), "won": hits == board.ship_tiles, "transcript": transcript,
        "move_median_s": statistics.median(seconds) if seconds else 0.0, "move_seconds": [round(s, 6) for s in seconds],
        "seconds": time.perf_counter() - started,
    }  # fmt: skip
