"""The rules of Battleship: the board and its geometry, fleets, answers, the referee and game states.

The bottom layer: it knows nothing of models, engines, players or experiments (docs/rules.md).
"""
