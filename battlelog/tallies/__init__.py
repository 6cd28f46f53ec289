"""Tallies: puzzles and evidence that give the number of ship cells in rows and columns (Bimaru), counted
exactly (see docs/bimaru.md)."""
