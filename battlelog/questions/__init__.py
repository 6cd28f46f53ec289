"""Asking anything about a hidden layout: Rothe et al.'s question language, answered exactly.

:mod:`.language` reads and type-checks programs, :mod:`.layout` evaluates one on one layout,
:mod:`.space` lists the layouts of named ships that fit a board, :mod:`.vectorised` evaluates a
program on all of them at once, :mod:`.state` reads a question-asking game's JSON state and
:mod:`.inference` gives answer distributions, entropy and expected information gain.
"""
