"""A run row's totals, as the archive stores them.

A run row counts its decisions and every model call of the run (`decisions`,
`model_calls`, prompt, completion and cached tokens, `usage` per model,
`last_prompt_tokens`). The runner adds to them as it goes and writes them in the same
transaction as the decision they count; wherever a run is closed outside that path (a
signal, an error, `--close-stale`, a resume) they are
recomputed here from what is stored: the decisions' own and extra completions, and the
postrun's calls, which the runner records on the row as `postrun["metered"]`.

An archive written before this rule could hold a row that counts a decision whose
transaction was rolled back; `mismatched_runs` finds rows whose decision count differs
from their stored decisions, and the archive repairs them when it is opened.

That check reads only the runs not yet found to agree (`runs_unchecked`). A run is listed
from the moment a writer may add to it until it is checked while it is not running: when
its row is inserted, when its count or status is written other than by a running game's
next decision, when a decision of it is deleted (triggers, `UNCHECKED_SCHEMA`, whatever code
writes them), when a decision is added outside a game (`Archive.add_decision`); a running
run stays listed however often it is checked, so the game's own per-decision writes fire
no trigger. An archive opened for writing checks and clears the list (repairing what
disagrees), and closing it checks the runs it wrote and clears those that agree and no
longer run. Opening an archive therefore costs what changed since it was last checked (and
the runs still running), not its size; a writer killed before it closed leaves its runs
listed, checked at the next open; an archive that has no list yet (written before it) is
checked whole, and listed whole when first opened to write.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

from bounded.archive.shared import Shared
from bounded.core import JSON, Completion, DecisionRecord, RunRecord

USAGE_FIELDS = (
    "calls", "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens",
    "counted_prompt_tokens", "counted_completion_tokens",
)  # fmt: skip
"""What `RunRecord.usage` counts per model (`reasoning_tokens`: of the completion tokens):
the tokens the server reported (`prompt_tokens`, `completion_tokens`: what costs read) and
(`counted_*`) the same calls counted by bounded's tokenizer (what context tables read)."""

TOKEN_GAP = 0.2
"""How far reported tokens may stray from counted ones before a run is flagged."""

TOKEN_FIELDS = USAGE_FIELDS[1:]

METERED_KEY = "metered"
"""The key of `RunRecord.postrun` that lists the token counts of each postrun call."""


def count_calls(run: RunRecord, completions: Iterable[Completion]) -> None:
    """Add model calls to a run's totals (a decision's, or the contract's postrun)."""
    for completion in completions:
        run.model_calls += 1
        run.prompt_tokens += completion.prompt_tokens
        run.completion_tokens += completion.completion_tokens
        run.cached_tokens += completion.cached_tokens
        usage = run.usage.setdefault(completion.model, dict.fromkeys(USAGE_FIELDS, 0))
        usage["calls"] += 1
        for field in TOKEN_FIELDS:  # a resumed run's usage may lack a newer field
            usage[field] = usage.get(field, 0) + getattr(completion, field)


def token_gap(counts: JSON) -> float | None:
    """How far one model's reported tokens stray from its counted ones (`RunRecord.usage`):
    the larger relative difference of prompt and of completion tokens; None when nothing was
    counted (a run recorded before counted tokens were kept)."""
    gaps = []
    for kind in ("prompt_tokens", "completion_tokens"):
        counted = int(counts.get(f"counted_{kind}", 0) or 0)
        if counted:
            gaps.append(abs(int(counts.get(kind, 0) or 0) - counted) / counted)
    return max(gaps) if gaps else None


def token_mismatch(run: RunRecord) -> str | None:
    """One line naming the models of a run whose reported tokens differ from the counted
    ones by more than `TOKEN_GAP`; None when every model's agree (or none were counted)."""
    found = []
    for model, counts in run.usage.items():
        gap = token_gap(counts)
        if gap is not None and gap > TOKEN_GAP:
            found.append(
                f"{model} reported {counts.get('prompt_tokens', 0):,} prompt / "
                f"{counts.get('completion_tokens', 0):,} completion tokens, bounded counted "
                f"{counts.get('counted_prompt_tokens', 0):,} / "
                f"{counts.get('counted_completion_tokens', 0):,}"
            )
    if not found:
        return None
    return (
        "; ".join(found) + f" (more than {TOKEN_GAP:.0%} apart: costs use the reported "
        "tokens, context tables the counted ones)"
    )


def metered(completions: Sequence[Completion]) -> list[JSON]:
    """The postrun calls as the run row keeps them: model and tokens of each."""
    return [
        {"model": call.model, **{field: getattr(call, field) for field in TOKEN_FIELDS}}
        for call in completions
    ]


def postrun_calls(postrun: JSON) -> list[Completion]:
    """The calls a run's postrun made, from its row: `postrun["metered"]`, or (a row written
    before that key) the calls its record keeps whole, less the placeholders of failed
    calls (no text, no tokens)."""
    if METERED_KEY in postrun:
        return [Completion(text="", **call) for call in postrun[METERED_KEY]]
    calls = [Completion.model_validate(call) for call in postrun.get("calls", [])]
    return [c for c in calls if c.text or any(getattr(c, f) for f in TOKEN_FIELDS)]


StoredDecision = tuple[int, Completion | None, list[Completion]]
"""A decision as its totals see it: prompt tokens, its own completion, the contract's."""


def stored_decision(record: DecisionRecord) -> StoredDecision:
    return record.prompt_tokens, record.completion, record.extra_completions


def recounted(run: RunRecord, decisions: Iterable[StoredDecision]) -> RunRecord:
    """The run with its totals recomputed from these decisions and its postrun's calls."""
    fresh = run.model_copy(
        update={
            "decisions": 0,
            "model_calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cached_tokens": 0,
            "last_prompt_tokens": 0,
            "usage": {},
        }
    )
    for prompt_tokens, own, extra in decisions:
        fresh.decisions += 1
        count_calls(fresh, ([own] if own else []) + extra)
        if own is not None:
            fresh.last_prompt_tokens = prompt_tokens
    count_calls(fresh, postrun_calls(run.postrun))
    return fresh


def stored_decisions(db: sqlite3.Connection, run_id: str) -> list[StoredDecision]:
    """The stored decisions of a run, as `recounted` reads them."""
    rows = db.execute(
        "SELECT d.prompt_tokens, d.completion, d.extra_completions FROM decisions d "
        "JOIN runs r ON r.id = d.run WHERE r.run_id = ? ORDER BY d.idx",
        (run_id,),
    ).fetchall()
    shared = Shared()
    return [
        (prompt_tokens, shared.completion_of(db, own), shared.extra_of(db, extra))
        for prompt_tokens, own, extra in rows
    ]


UNCHECKED = "runs_unchecked"

RUNNING = "running"
"""The status of a run a writer may still be adding decisions to."""


def _listing(name: str, event: str, run: str, when: str = "") -> str:
    return (
        f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} {when} BEGIN "
        f"INSERT INTO {UNCHECKED} SELECT {run} WHERE {run} IS NOT NULL AND NOT EXISTS "
        f"(SELECT 1 FROM {UNCHECKED} WHERE run = {run}); END"
    )


NOT_BOTH_RUNNING = f"WHEN OLD.status IS NOT '{RUNNING}' OR NEW.status IS NOT '{RUNNING}'"

UNCHECKED_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {UNCHECKED} (run INTEGER PRIMARY KEY)",
    _listing("unchecked_run", "INSERT ON runs", "NEW.id"),
    _listing("unchecked_row", "UPDATE OF decisions, status ON runs", "NEW.id", NOT_BOTH_RUNNING),
    _listing("unchecked_gone", "DELETE ON decisions", "OLD.run"),
)
"""The list of runs whose totals are not yet known to agree, and the triggers that keep
it (the statements, in order): a run is listed when its row is inserted, when its count or
status is written other than by a running game's next decision, and when a decision of
it is deleted; a running run stays listed until it stops running (`settle_unchecked`), so
the decisions, counts and checkpoints its writer adds need no trigger of their own (a
decision added to a run that is not running, `Archive.add_decision`, lists it in code:
`list_unchecked`). A trigger's `INSERT OR IGNORE` would take the conflict rule of the
statement that fired it (a run's upsert), so each inserts only what is not listed."""

PER_DECISION_TRIGGERS = ("unchecked_count", "unchecked_decision", "unchecked_checkpoint")
"""The triggers an archive of format 3 kept before (each fired on every decision):
`track_totals` replaces them."""

KEEPING = f"SELECT id FROM runs WHERE status = '{RUNNING}'"
"""The runs that stay listed however they were found: those still running."""


def tracks_totals(db: sqlite3.Connection) -> bool:
    """Whether the archive keeps the list of unchecked runs (`runs_unchecked`)."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (UNCHECKED,)).fetchone()
    return found is not None


def _tracks_as_now(db: sqlite3.Connection) -> bool:
    """Whether the list is kept by today's triggers (not those that fired per decision)."""
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    return tracks_totals(db) and "unchecked_row" in names and not names & set(PER_DECISION_TRIGGERS)


def track_totals(db: sqlite3.Connection) -> None:
    """Create the list and its triggers in one write transaction; an archive that had no
    list gets every run listed (none of them checked yet), one whose triggers fired per
    decision gets them replaced and its running runs listed (the rule the new ones keep).
    An archive that has today's is left as it is, without taking the write lock."""
    if _tracks_as_now(db):
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        if _tracks_as_now(db):
            return
        listed = tracks_totals(db)
        for name in PER_DECISION_TRIGGERS:
            db.execute(f"DROP TRIGGER IF EXISTS {name}")
        for statement in UNCHECKED_SCHEMA:
            db.execute(statement)
        db.execute(
            f"INSERT OR IGNORE INTO {UNCHECKED} {KEEPING if listed else 'SELECT id FROM runs'}"
        )


def list_unchecked(db: sqlite3.Connection, run_id: str) -> None:
    """List a run whose decisions or checkpoint a writer changes outside a running game's
    own writes, inside the caller's transaction."""
    db.execute(f"INSERT OR IGNORE INTO {UNCHECKED} SELECT id FROM runs WHERE run_id = ?", (run_id,))


def unchecked_count(db: sqlite3.Connection) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {UNCHECKED}").fetchone()[0])


def mismatched_runs(db: sqlite3.Connection, *, everywhere: bool = True) -> list[str]:
    """Runs recorded decision by decision (they have stored decisions or a checkpoint;
    imported runs have neither) whose row counts other decisions than are stored: of every
    run, or (`everywhere=False`) of the unchecked runs only. Each run's decisions are
    counted by the decisions' index on their run."""
    runs = "runs r" if everywhere else f"{UNCHECKED} u JOIN runs r ON r.id = u.run"
    rows = db.execute(
        "SELECT run_id FROM (SELECT r.run_id, r.decisions AS counted, "
        "(SELECT COUNT(*) FROM decisions d WHERE d.run = r.id) AS stored, "
        f"r.run_id IN (SELECT run_id FROM checkpoints) AS resumable FROM {runs}) "
        "WHERE counted != stored AND (stored > 0 OR resumable) ORDER BY run_id"
    ).fetchall()
    return [row[0] for row in rows]


def settle_unchecked(db: sqlite3.Connection) -> None:
    """Clear the unchecked runs that agree with their stored decisions (and those no longer
    stored), in one write transaction: those that disagree stay listed for the next open
    to repair, and those still running stay listed for their writer. Nothing listed:
    nothing written, no lock taken."""
    if not unchecked_count(db):
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        keep = mismatched_runs(db, everywhere=False)
        marks = ", ".join("?" for _ in keep)
        db.execute(
            f"DELETE FROM {UNCHECKED} WHERE run NOT IN "
            f"(SELECT id FROM runs WHERE run_id IN ({marks})) AND run NOT IN ({KEEPING})",
            keep,
        )


def clear_checked(db: sqlite3.Connection) -> None:
    """Clear the listed runs once every one is checked (and repaired), inside the caller's
    write transaction; those still running stay listed."""
    db.execute(f"DELETE FROM {UNCHECKED} WHERE run NOT IN ({KEEPING})")


def corrected_runs(
    db: sqlite3.Connection,
    read_run: Callable[[sqlite3.Row], RunRecord],
    *,
    everywhere: bool = True,
) -> list[RunRecord]:
    """The mismatched runs (`mismatched_runs`) with their totals recounted from what is
    stored."""
    corrected = []
    for run_id in mismatched_runs(db, everywhere=everywhere):
        row = db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        corrected.append(recounted(read_run(row), stored_decisions(db, run_id)))
    return corrected


__all__ = [
    "METERED_KEY",
    "TOKEN_GAP",
    "UNCHECKED",
    "UNCHECKED_SCHEMA",
    "USAGE_FIELDS",
    "StoredDecision",
    "clear_checked",
    "corrected_runs",
    "count_calls",
    "list_unchecked",
    "metered",
    "mismatched_runs",
    "postrun_calls",
    "recounted",
    "settle_unchecked",
    "stored_decision",
    "stored_decisions",
    "token_gap",
    "token_mismatch",
    "track_totals",
    "tracks_totals",
    "unchecked_count",
]
