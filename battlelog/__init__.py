"""battlelog: Battleship played by exact Bayesian inference over a relational ProbLog model."""

from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState, Shot

__version__ = "0.1.0"

__all__ = ["BattlelogError", "GameConfig", "GameState", "Placement", "Referee", "Shot", "__version__", "sample_layout"]
