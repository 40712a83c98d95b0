"""Applications built on the runner: each plays games through `bounded.runner` for one job
and returns data (the command line formats it).

`demo` (the spire demo and the warehouse horizons), `ladder` (the ascension ladder),
`workbench` (the workbench task suite), and the episodic bank builders: `craft_bank`
(EpicStar's bootstrap, and `record_game`, which turns any expert's game into bank
entries), `nethack_bank`, `babyai_bank`, and `scripted_players` (experts as scripted
models, for tests and benchmarks of the plumbing). They sit above the runner because they
call it; the bank they fill is the episodic method's (`bounded.contracts.episodic.bank`).
"""
