"""Applications built on the runner: each plays games through `bounded.runner` for one job
and returns data (the command line formats it).

`demo` (the spire demo and the warehouse horizons), `ladder` (the ascension ladder),
`workbench` (the workbench task suite), `bank` (the one episodic bank builder: it plays
the bank recipe an environment's record names, `EnvRecord.bank`, and `record_game` turns
any expert's game into bank entries), `craft_bank` (EpicStar's bootstrap with its report),
`nethack_bank` and `babyai_bank` (those recipes from Python), and `scripted_players`
(experts as scripted models, for tests and benchmarks of the plumbing). They sit above
the runner because they call it; the bank they fill is the episodic method's
(`bounded.contracts.episodic.bank`).
"""
