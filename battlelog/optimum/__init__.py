"""The exact optimum of small instances (the search loads numba: import its modules only to solve)."""

#: Default memory for the table of solved states (here, so that ``optimal --help`` needs no solver).
DEFAULT_MEMORY = 1 << 30
