"""The model stage: a game state as a relational ProbLog program (rendered from templates/) and as
the ground problem that compiling engines count (placements pruned by the evidence, constraints left)."""
