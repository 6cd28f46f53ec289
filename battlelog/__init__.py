"""battlelog: Battleship played by exact Bayesian inference over a relational ProbLog model."""

from battlelog.errors import BattlelogError
from battlelog.rules.game import GameConfig, Placement, Referee, sample_layout
from battlelog.rules.state import GameState, Shot

__version__ = "0.1.0"

__all__ = ["BattlelogError", "GameConfig", "GameState", "Placement", "Referee", "Shot", "__version__", "sample_layout"]
