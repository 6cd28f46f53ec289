"""What the native engine's ladder remembers between questions, owned in one place.

The rungs (:mod:`~battlelog.engines.native.ladder`) read it; a sweep replaces its models (freeing the last ones
first, so that two models never share the budget); :meth:`Memory.clear` drops all of it.
"""

from __future__ import annotations

from battlelog.engines.canonical import PosteriorKey
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.misses import Recount, recount_for
from battlelog.engines.native.turns import Turned, WeighedCases
from battlelog.engines.native.weights import Weighted
from battlelog.rules.state import GameState


class Memory:
    """What the rungs remember between questions, in one place: a sweep replaces the models, :meth:`clear` drops all."""

    def __init__(self) -> None:
        #: The last state's model when it was not split, under its posterior's key.
        self.whole: tuple[PosteriorKey, LayeredModel] | None = None
        #: The case models of the last state weighed in two (turns.py), under their key.
        self.cases: WeighedCases | None = None
        #: The last state counted in two cases, with the case models it keeps.
        self.turned: Turned | None = None
        #: The state ``whole`` and ``cases`` were built for.
        self.state: GameState | None = None
        #: The empty board's model and the budget it was swept under: every game's first draws read it.
        self.board: tuple[PosteriorKey, int, LayeredModel] | None = None
        #: The last state recounted, its recount, and whether it draws.
        self.recounted: tuple[GameState, Recount | None, bool] | None = None
        #: The last weighted posterior: (its key, whether touching pairs were counted), and it.
        self.weighed: tuple[tuple[PosteriorKey, bool], Weighted] | None = None
        #: Whether layouts were drawn: then only recounts that draw alike are made, and no state is turned.
        self.draws = False

    def forget(self, state: GameState | None = None) -> None:
        """Free the kept models before a sweep builds the next ones (for ``state``, when given)."""
        self.whole = self.turned = self.cases = None
        if state is not None:
            self.state = state

    def recount(self, state: GameState, drawing: bool, budget: int) -> Recount | None:
        """The kept model read again for ``state``, a miss or two on, that draws alike when ``drawing`` (misses.py)."""
        if self.recounted is None or self.recounted[0] != state or (drawing and not self.recounted[2]):
            self.recounted = None  # free the last recount's arrays before making the next
            self.recounted = (state, recount_for(state, self.state, self.whole, drawing, budget), drawing)
        return self.recounted[1]

    def clear(self) -> None:
        self.forget()
        self.state = self.board = self.recounted = self.weighed = None
