"""The docs' generated tables: one renderer per table, grouped by topic (`archive`,
`balrog`, `comparisons`, `context_audit`, `environments`, `epicstar`, `memory_designs`,
`quickstart`, `replies`, `retrieval`, `speed`, `sweeps`), each a function of its committed
data files (parsed JSON or TOML) returning Markdown; `registry` maps each region's marker to
its renderer, `regions` finds, checks and rewrites the regions, and `command` is
`python -m bounded.docgen --check` / `--write` (also `scripts/docs.py`).

Nothing else in `bounded` imports this package: it reads data only."""
