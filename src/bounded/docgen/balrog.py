"""BALROG: the scripted players' progression on its five environments
(`bench/balrog_experts.py`), how soon its TextWorld games are ready on a fresh machine
(`bench/textworld_balrog_pool.py`) and the embedded model's reduced protocol
(`experiments/balrog_small.toml`'s committed summary)."""

from __future__ import annotations

from bounded.docgen.format import Data, measured_under, table

BALROG_ENVS = ("babyai", "crafter", "minihack", "nle", "textworld")


def scripted_progression(data: Data) -> str:
    """The scripted players' progression per environment and on average, with its
    standard error and the episodes played."""
    summary = data["summary"]["scripted-expert"]
    cells = [
        f"{e['progression_percentage']:.1f} ± {e['standard_error']:.1f} (n={e['episodes_played']})"
        for e in (summary["environments"][name] for name in BALROG_ENVS)
    ]
    average = f"{summary['average_progress']:.1f} ± {summary['standard_error']:.1f}"
    return table(["agent", *BALROG_ENVS, "average"], [["scripted players", *cells, average]])


def textworld_first_use(data: Data) -> str:
    """Seconds from a fresh process with an empty home to the first observation of each
    BALROG TextWorld task, with the cache present, and to a first decision."""
    rows = [
        [
            r["task"],
            f"{r['cold']['first_observation_s']:.2f}",
            f"{r['cold']['reset_s']:.2f}",
            f"{r['warm']['first_observation_s']:.2f}",
            f"{r['cold_decision']['process_to_first_decision_s']:.2f}",
        ]
        for r in data["rows"]
    ]
    header = [
        "task", "first observation, empty home (s)", "of which reset (unpack + load)",
        "cache present (s)", "first `balrog-naive` decision, empty home (s)",
    ]  # fmt: skip
    return table(header, rows, "lrrrr") + f"\n{measured_under(data)}\n"


def balrog_small_games(data: Data) -> str:
    """A committed summary of `experiments/balrog_small.toml`'s archive (`bounded export
    --format summary`): one row per game, in the archive's order."""
    rows = []
    for run in data["runs"]:
        decisions = run["decisions"] or 0
        per_decision = run["prompt_tokens"] / decisions if decisions else 0
        progression = run["outcome"].get("progression")
        rows.append([
            f"`{run['cell']}`", run["status"], decisions, run["model_calls"],
            f"{per_decision:,.0f}", run["fallbacks"], run["parse_errors"],
            f"{run['wall_s'] / 60:.1f} min",
            "-" if progression is None else f"{100 * progression:.1f}%",
        ])  # fmt: skip
    header = [
        "cell", "status", "decisions", "model calls", "prompt tokens / decision", "fallbacks",
        "unparsed replies", "wall", "progression",
    ]  # fmt: skip
    return table(header, rows, "llrrrrrrr") + f"\n{measured_under(data)}\n"
