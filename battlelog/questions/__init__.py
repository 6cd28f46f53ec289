"""Asking anything about a hidden layout: Rothe et al.'s question language, answered exactly.

:mod:`.language` reads programs and :mod:`.typecheck` checks their types, :mod:`.layout` evaluates
one on one layout (the reference semantics), :mod:`.space` lists the layouts of named ships that fit
a board, :mod:`.scoped`, :mod:`.vectorised` and :mod:`.ship_functions` evaluate a program on all of them at once,
:mod:`.state` reads a question-asking game's JSON state and :mod:`.inference` gives answer
distributions, entropy and expected information gain.
"""
