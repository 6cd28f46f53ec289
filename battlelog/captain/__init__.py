"""The BattleshipQA captain-and-spotter game played by exact Bayesian captains (docs/captain.md).

:mod:`.boards` reads a true board, :mod:`.spotter` answers questions about it (truthfully or with
noise), :mod:`.belief` is the captain's exact posterior over named layouts, :mod:`.bank` the
questions a captain may ask, :mod:`.captains` the registry of captains and :mod:`.game` one game
as a JSON record.
"""
