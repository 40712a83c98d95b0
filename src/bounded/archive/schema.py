"""The archive's tables (format 3; prompts' tables: `bounded.archive.prompts`; what
decisions repeat: `bounded.archive.shared`).

Runs and decisions are keyed by integers (`runs.id`, `decisions.id`); a decision refers to
its run by `decisions.run`, and the run's 64-hex id is a unique column of `runs` only. The
tables that hold a few rows per run (checkpoints, counterfactuals) keep the 64-hex id."""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    format_version INTEGER NOT NULL,
    experiment TEXT NOT NULL DEFAULT '',
    cell TEXT NOT NULL DEFAULT '',
    tag TEXT NOT NULL DEFAULT '',
    env_id TEXT NOT NULL,
    env_version TEXT NOT NULL,
    contract TEXT NOT NULL,
    contract_config TEXT NOT NULL,
    contract_config_hash TEXT NOT NULL,
    store_hashes TEXT NOT NULL,
    model TEXT NOT NULL,
    model_params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    outcome TEXT NOT NULL,
    postrun TEXT NOT NULL DEFAULT '{}',
    spec TEXT NOT NULL DEFAULT '{}',
    identity TEXT NOT NULL DEFAULT '',
    inputs TEXT NOT NULL DEFAULT '{}',
    usage TEXT NOT NULL DEFAULT '{}',
    decisions INTEGER NOT NULL,
    model_calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    last_prompt_tokens INTEGER NOT NULL,
    wall_s REAL NOT NULL,
    started_at REAL NOT NULL,
    package_version TEXT NOT NULL,
    code_revision TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs (experiment, cell, seed);
CREATE INDEX IF NOT EXISTS runs_by_tag ON runs (tag, started_at);
CREATE INDEX IF NOT EXISTS runs_in_order ON runs (started_at, run_id);
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY,
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    format_version INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    tokens_by_layer TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion TEXT,
    actions TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL,
    state_patch TEXT,
    parse_error TEXT,
    fallback INTEGER NOT NULL,
    reward REAL NOT NULL,
    latency_s REAL NOT NULL,
    info TEXT NOT NULL,
    extra_completions TEXT NOT NULL,
    prompt_base INTEGER NOT NULL DEFAULT 0,
    prompt BLOB,
    UNIQUE (run, idx)
);
CREATE TABLE IF NOT EXISTS snapshots (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    memory TEXT,
    runner TEXT NOT NULL DEFAULT '{}',
    store_hashes TEXT NOT NULL DEFAULT '{}',
    logs TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS checkpoint_logs (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    log TEXT NOT NULL,
    pos INTEGER NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (run_id, log, pos)
);
CREATE TABLE IF NOT EXISTS leases (
    scope TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    holder TEXT NOT NULL,
    taken_at REAL NOT NULL
);
"""

COUNTERFACTUAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS counterfactuals (
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    layer TEXT NOT NULL,
    variant TEXT NOT NULL,
    model TEXT NOT NULL,
    settings_hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    replacement TEXT,
    kind TEXT NOT NULL,
    original_actions TEXT NOT NULL,
    actions TEXT NOT NULL,
    fallback INTEGER NOT NULL,
    parse_error TEXT,
    completion TEXT,
    expert_actions TEXT NOT NULL,
    changed INTEGER NOT NULL,
    original_agrees INTEGER NOT NULL,
    counterfactual_agrees INTEGER NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (run_id, idx, layer, variant, model, settings_hash),
    FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
);
"""
"""Attribution's re-asked decisions (`bounded.archive.counterfactuals` writes and reads
them), created with the rest of the schema."""


_RUN_JSON_FIELDS = (
    "contract_config",
    "store_hashes",
    "model_params",
    "outcome",
    "postrun",
    "spec",
    "inputs",
    "usage",
)
