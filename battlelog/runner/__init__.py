"""Playing games and experiments: the game loop, game tasks and their statuses, executors that run
them (local processes or a dask cluster), the journal that records every game, and reading records."""
