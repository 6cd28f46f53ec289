"""The BattleshipQA captain-and-spotter game played by exact Bayesian captains (docs/captain.md).

:mod:`.boards` reads a true board, :mod:`.spotter` answers questions about it (truthfully or with
noise), :mod:`.belief` is the captain's exact posterior over named layouts, :mod:`.bank` the
questions a captain may ask, :mod:`.captains` the registry of captains and :mod:`.game` one game
as a JSON record. The package itself holds only what the command line reads before a game starts.
"""

#: The asker's default: ask when a question's expected information gain exceeds this many bits.
DEFAULT_THRESHOLD = 0.3
