"""Sweeps: experiment files planned into games, checked against the archive, estimated,
and played by local processes, threads or Ray, each game through the runner's loop."""
