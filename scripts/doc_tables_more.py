"""Renderers of the docs' generated tables, second part: the spire context audit, the
calibrations and throughputs of the environments, the workbench suite, NetHack's audit,
episodic retrieval, reply modes, and the committed summaries of embedded-model archives."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doc_format import count, measured_under, percent, sig3, table

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))

Data = dict[str, Any]


def _outcome(result: Data) -> str:
    outcome = result["outcome"]
    return "victory" if outcome["victory"] else f"death, floor {outcome['floor']}"


def context_audit_cost(data: Data) -> str:
    rows = []
    for r in data["results"]:
        typed, unbounded = r["typed"], r["transcript_unbounded"]
        rows.append([
            f"{r['seed']} ({_outcome(r)}, {r['typed']['decisions']} decisions)",
            f"{percent(typed['reused_share'])}, {typed['cost']:.3f}",
            f"{percent(unbounded['reused_share'])}, {unbounded['cost']:.3f}",
            f"{r['ratios']['unbounded_over_typed']:.1f}x",
            f"{r['ratios']['unbounded_over_typed_cost']:.2f}x",
        ])  # fmt: skip
    header = [
        "seed", "typed: reused, cost", "transcript (no window): reused, cost", "raw ratio",
        "cost ratio",
    ]  # fmt: skip
    return table(header, rows)


def context_audit_fresh(data: Data) -> str:
    """The cost table of docs/cost.md: reuse, fresh tokens and cost of both contracts."""
    rows = []
    for r in data["results"]:
        typed, unbounded = r["typed"], r["transcript_unbounded"]
        rows.append([
            f"{r['seed']} ({_outcome(r)})", typed["decisions"],
            percent(typed["reused_share"]), count(typed["fresh"]), f"{typed['cost']:.3f}",
            percent(unbounded["reused_share"]), count(unbounded["fresh"]),
            f"{unbounded['cost']:.3f}", f"{r['ratios']['unbounded_over_typed']:.1f}x",
            f"{r['ratios']['unbounded_over_typed_cost']:.2f}x",
        ])  # fmt: skip
    header = [
        "seed", "decisions", "typed: prompt reused", "typed fresh", "typed cost",
        "transcript: reused", "transcript fresh", "transcript cost", "raw ratio", "cost ratio",
    ]  # fmt: skip
    return table(header, rows)


def context_audit_orders(data: Data) -> str:
    orders = ("paper", "legacy", "cache")

    def reuse(order: Data) -> str:
        return f"{percent(order['reused_share'])} of {count(order['total'])}"

    rows = [[r["seed"], *(reuse(r["orders"][o]) for o in orders)] for r in data["results"]]
    return table(["seed", *(f"`{o}`" for o in orders)], rows)


def context_audit_full(data: Data) -> str:
    """docs/typed.md's table: typed against both transcripts, per seed."""
    rows = []
    for r in data["results"]:
        typed, window = r["typed"], r["transcript_window"]
        rows.append([
            r["seed"], _outcome(r), typed["decisions"], count(typed["total"]), count(typed["max"]),
            f"{typed['slope_per_100_share']:+.2f}%", f"{typed['state_slope_per_100_share']:+.2f}%",
            count(window["total"]), count(r["transcript_unbounded"]["total"]),
            f"{r['ratios']['unbounded_over_typed']:.1f}x", window["first_truncated_decision"],
        ])  # fmt: skip
    header = [
        "seed", "outcome", "decisions", "typed total", "typed max",
        "typed slope per 100 decisions", "of which the state (L2 + combat)",
        "transcript, 8k window", "transcript, no window", "no window / typed",
        "window full at decision",
    ]  # fmt: skip
    return table(header, rows)


def context_audit_raw(data: Data) -> str:
    rows = [
        [
            f"{r['seed']} ({_outcome(r)})", r["typed"]["decisions"], count(r["typed"]["total"]),
            count(r["transcript_window"]["total"]), count(r["transcript_unbounded"]["total"]),
            f"{r['ratios']['unbounded_over_typed']:.1f}x",
        ]
        for r in data["results"]
    ]  # fmt: skip
    header = [
        "seed", "decisions", "typed", "transcript, 8k window", "transcript, no window",
        "no window / typed",
    ]  # fmt: skip
    return table(header, rows)


def context_audit_layers(data: Data) -> str:
    rows = []
    for r in data["results"]:
        whole = r["typed"]["non_state_layer_slope_per_100_share"]
        within = r["typed"]["non_state_within_act_slope_per_100_share"]
        rows.append([
            r["seed"], *(f"{whole[layer]:+.2f}%" for layer in ("L1", "L3", "L5")),
            f"{within['L3']:+.1f}%, {within['L5']:+.1f}%",
        ])  # fmt: skip
    header = ["seed", "L1", "L3 (rules in play)", "L5 (skills whose triggers hold)",
              "L3, L5 within each act"]  # fmt: skip
    return table(header, rows)


def layer_order_replays(demo: Data, paper: Data) -> str:
    def row(label: str, data: Data) -> list[str]:
        orders = data["orders"]
        recorded = data["recorded"]
        return [
            label, *(percent(orders[o]["reused_share"]) for o in ("paper", "legacy")),
            f"**{percent(orders['cache']['reused_share'])}**",
            f"{count(recorded['cached'])} of {count(recorded['prompt'])}",
        ]  # fmt: skip

    header = ["game (seed 1, Act 1, embedded model)", "`paper`", "`legacy`", "`cache`",
              "llama.cpp's recorded cached tokens"]  # fmt: skip
    return table(header, [
        row(f"the demo's, {demo['decisions']} decisions", demo),
        row(f"the paper-order run's, first {paper['decisions']} decisions", paper),
    ])  # fmt: skip


def spire_calibration(data: Data) -> str:
    rows = []
    for c in data["cells"]:
        if c["player"] != "expert":
            continue
        low, high = c["win_rate_ci95"]
        rows.append([
            c["player"], c["ascension"], percent(c["win_rate"]),
            f"{100 * low:.1f}-{100 * high:.1f}%", f"{c['mean_floor']:.1f}",
        ])  # fmt: skip
    random = [c for c in data["cells"] if c["player"] == "random"]
    floors = [c["mean_floor"] for c in random]
    rows.append([
        "random", " / ".join(str(c["ascension"]) for c in random),
        percent(max(c["win_rate"] for c in random), 0), "",
        f"{min(floors):.1f}-{max(floors):.1f}",
    ])  # fmt: skip
    return table(["player", "ascension", "win rate", "95% CI", "mean floor"], rows)


def spire_calibration_full(data: Data) -> str:
    """docs/spire.md's table: every cell with its score, bosses and deaths by act."""
    rows = []
    for c in data["cells"]:
        low, high = c["win_rate_ci95"]
        deaths = " / ".join(str(c["deaths_by_act"][act]) for act in ("1", "2", "3", "4"))
        rows.append([
            c["player"], c["ascension"], percent(c["win_rate"]),
            f"{100 * low:.1f}-{100 * high:.1f}%", f"{c['mean_floor']:.1f}",
            f"{c['mean_score']:.1f}", f"{c['mean_bosses_beaten']:.2f}", deaths,
        ])  # fmt: skip
    header = ["player", "ascension", "win rate", "95% CI (Wilson)", "mean floor", "mean score",
              "bosses beaten", "deaths in act 1 / 2 / 3 / final"]  # fmt: skip
    return table(header, rows)


def spire_throughput_full(data: Data) -> str:
    names = {
        "expert": "expert",
        "random": "random",
        "decapitate_the_spire": "`decapitate-the-spire` 0.2.0, greedy, Act 1",
    }
    rows = []
    for key, label in names.items():
        d = data[key]
        runs = f"{count(d['runs'])}" + (f" ({d['wins']} won)" if d["wins"] else "")
        rows.append([
            label, runs, count(d["decisions"]), count(d["decisions_per_s"]),
            count(d["decisions_per_cpu_s"]), count(d["actions_per_s"]), f"{d['runs_per_s']:.1f}",
        ])  # fmt: skip
    header = ["player", "runs", "decisions", "decisions/s (wall)", "decisions per CPU-second",
              "actions/s (wall)", "runs/s (wall)"]  # fmt: skip
    load = ", ".join(f"{x:.2f}" for x in data["machine"]["load_avg"])
    return (
        table(header, rows)
        + f"\nLoad average at the end (1, 5, 15 minutes): {load}. {measured_under(data)}\n"
    )


def spire_throughput(data: Data) -> str:
    names = {
        "expert": "expert, full three-act runs",
        "random": "random, full runs",
        "decapitate_the_spire": "decapitate-the-spire 0.2.0, greedy, Act 1 only",
    }
    rows = [[label, count(data[key]["runs"]), count(data[key]["decisions_per_cpu_s"])]
            for key, label in names.items()]  # fmt: skip
    load = ", ".join(f"{x:.2f}" for x in data["machine"]["load_avg"])
    return (
        table(["player", "runs", "decisions per CPU-second"], rows)
        + f"\nLoad average at the end (1, 5, 15 minutes): {load}. {measured_under(data)}\n"
    )


CRAFT_STYLES = ("timing", "rush", "power", "macro", "air")


def craft_calibration(data: Data) -> str:
    levels = sorted({c["level"] for c in data["cells"]})
    rate = {(c["level"], c["style"]): c for c in data["cells"]}
    rows = []
    for level in levels:
        cells = [rate[(level, style)] for style in CRAFT_STYLES]
        wins, games = sum(c["wins"] for c in cells), sum(c["games"] for c in cells)
        rows.append([level, *(f"{c['win_rate']:.2f}" for c in cells), f"{wins / games:.2f}"])
    return table(["level", *CRAFT_STYLES, "all"], rows)


def workbench(data: Data) -> str:
    """The suite's cells; with the model's completion tokens, finishes and time when it is
    not the expert."""
    mode = {"multi": "multi-action", "single": "one call per turn"}
    local = data["settings"]["model"] != "expert"
    rows = []
    for cell in data["cells"]:
        done = cell["rows"]
        row = [
            cell["contract"], mode[cell["mode"]], f"{cell['passed']}/{cell['tasks']}",
            sum(r["turns"] for r in done), sum(r["tool_calls"] for r in done),
            count(sum(r["prompt_tokens"] for r in done)),
        ]  # fmt: skip
        if local:
            row += [
                count(sum(r["completion_tokens"] for r in done)),
                sum(r["stop_reason"] == "finish" for r in done),
                count(sum(r["seconds"] for r in done)),
            ]  # fmt: skip
        rows.append(row)
    header = ["contract", "turn mode", "passed", "turns", "tool calls", "prompt tokens"]
    if local:
        header += ["completion tokens", "stopped by finish", "wall s"]
    return table(header, rows) + f"\nModel `{data['settings']['model']}`. {measured_under(data)}\n"


def episodic_retrieval_rows(data: Data) -> str:
    rows = [
        [count(r["entries"]), r["window"], count(r["candidates_mean"]), sig3(r["p50_ms"]),
         sig3(r["p95_ms"])]
        for r in data["rows"]
    ]  # fmt: skip
    return table(["entries", "window", "candidates", "p50 ms", "p95 ms"], rows, "rlrrr")


def nethack_context_audit(data: Data) -> str:
    names = {
        "typed": "`typed` (L1, L3 NetHack rules, L5 NetHack skills, L2)",
        "state": "`state`",
        "transcript (unbounded, computed)": "`transcript` (computed)",
    }
    rows = []
    for key, label in names.items():
        c = data[key]
        over = c["first_decision_over_window"]
        rows.append([
            label, count(c["first"]), count(c["last"]), f"{c['slope_per_decision']:+.2f}",
            count(c["cumulative"]), "never" if over is None else f"from decision {over}",
        ])  # fmt: skip
    header = [
        "contract", "first prompt", "last prompt", "slope (tokens/decision)",
        f"cumulative, {data['steps']} decisions", f"over the {count(data['window'])} window",
    ]  # fmt: skip
    return table(header, rows)


def episodic_retrieval(data: Data) -> str:
    by = {(r["entries"], r["window"]): r for r in data["rows"]}
    rows = []
    for entries in sorted({r["entries"] for r in data["rows"]}):
        cells = []
        for window in ("t_delta=0", "t_delta=30", "full scan"):
            r = by[(entries, window)]
            cells.append(f"{r['p50_ms']:.2f} ms ({count(r['candidates_mean'])} candidates)")
        rows.append([count(entries), *cells])
    header = ["bank entries", "t_delta = 0", "t_delta = 30", "full scan (every entry a candidate)"]
    return table(header, rows) + f"\np50 over each row's queries. {measured_under(data)}\n"


def reply_modes(*files: Data) -> str:
    from reply_modes import cells_table

    notes = []
    earlier = sorted({f.get("commit", "not recorded") for f in files if "provenance" not in f})
    if earlier:
        notes.append(f"Commits: {', '.join(earlier)}. Load: not recorded in these files.")
    for f in files:
        if "provenance" in f:
            notes.append(measured_under(f, f"`{f['provenance']['command']}`"))
    return cells_table([cell for f in files for cell in f["cells"]]) + (
        "\n\n" + "\n\n".join(notes) + "\n"
    )


def kill_trials(*files: Data) -> str:
    """One row per kill-trial file: driver kills (`kill_trials.py`) or Ray workers killed
    mid-game (`--ray`), with the sums the prose quotes."""
    rows = []
    for f in files:
        kills = f.get("killed", f.get("workers_killed"))
        at = [k for row in f.get("rows", []) for k in row.get("killed_at", [])]
        rows.append([
            f"`{f['command'].removeprefix('python ')}`", f["trials"], kills,
            f"{min(at)}-{max(at)}" if at else "", f["interrupted_games"], f["re_asked_decisions"],
            f["trials_re_asking_more_than_their_interrupted_games"], f["orphans"],
            f["duplicates"], f["stuck_archives"], f["different_games"],
        ])  # fmt: skip
    header = [
        "command", "trials", "kills", "killed at decision", "interrupted games",
        "decisions asked again", "trials asking more than interrupted", "orphans",
        "duplicates", "stuck archives", "games differing",
    ]  # fmt: skip
    return table(header, rows)


def episodic_tokens(data: Data) -> str:
    rows = [
        [
            r["tag"], f"{r['wins']}/{r['games']}", f"{r['pbr']:.3f}", f"{r['rur']:.1f}",
            f"{r['apu']:.3f}", f"{r['tr']:.3f}", count(r["tokens_per_game"]),
            f"{r['model_calls_per_game']:.1f}",
        ]
        for r in data["rows"]
    ]  # fmt: skip
    header = ["tag", "win rate", "PBR", "RUR", "APU", "TR", "tokens/game", "model calls/game"]
    return table(header, rows) + f"\nModel `{data['model']}`. {measured_under(data)}\n"


def _recovery(summary: Data, embedded: bool) -> str:
    from bounded.analysis.recovery import accuracy_after, decisions_to_recover

    runs = [
        r for r in summary["runs"]
        if "perturb_at" in r["contract_config"] and r["status"] == "completed"
        and r["model"].startswith("local") == embedded
    ]  # fmt: skip
    runs.sort(key=lambda r: (r["env_id"] != "bounded/Warehouse-v0", r["contract"],
                             r["contract_config"].get("perturb", "wipe") != "wipe"))  # fmt: skip
    rows = []
    for r in runs:
        at, rewards = r["contract_config"]["perturb_at"], r["rewards"]
        recovered = decisions_to_recover(rewards, at)
        text = "never" if recovered is None else str(recovered)
        if r["env_id"] == "bounded/Workbench-v0":
            text += " (passed)" if r["outcome"].get("victory") else " (not passed)"
        before, after = rewards[:at], accuracy_after(rewards, at)
        rows.append([
            r["env_id"].split("/")[1].removesuffix("-v0").lower(), r["contract"],
            f"{r['contract_config'].get('perturb', 'wipe')} at {at}", text,
            f"{sum(x > 0 for x in before) / len(before):.2f}" if before else "-",
            "-" if after is None else f"{after:.2f}",
        ])  # fmt: skip
    header = ["env", "contract", "perturbation", "decisions to recover", "accuracy before",
              "accuracy after"]  # fmt: skip
    wall = sum(r["wall_s"] for r in runs)
    return table(header, rows) + (
        f"\n{len(runs)} game{'' if len(runs) == 1 else 's'}, {count(wall)} s of wall time in all. "
        f"{measured_under(summary, 'Summary written')}\n"
    )


def recovery_scripted(summary: Data) -> str:
    return _recovery(summary, embedded=False)


def recovery_embedded(summary: Data) -> str:
    return _recovery(summary, embedded=True)


def _step(step: Data) -> str:
    return f"{step['decision_interval']:g} s"


def epicstar_steps(data: Data) -> str:
    steps = data["steps"]
    wins = [
        f"**{s['wins']}/{s['games']}**"
        if s["step"] == data["chosen_step"]
        else f"{s['wins']}/{s['games']}"
        for s in steps
    ]
    header = ["step (1 action)", *(_step(s["step"]) for s in steps)]
    return table(header, [["expert wins", *wins]], "l" + "r" * len(steps))


def epicstar_agents(data: Data) -> str:
    rows = []
    for agent, result in data["agents"].items():
        chosen = result.get("chosen") or {}
        row = next(r for r in result["rows"] if r["config"] == chosen)
        settings = ", ".join(f"{k} {v}" for k, v in chosen.items()) or "-"
        rows.append([
            f"`{agent}`", len(result["rows"]), settings, f"{row['wins']}/{row['games']}",
            f"{row['effective_action_rate']:.2f}", f"{row['model_calls_per_game']:.1f}",
        ])  # fmt: skip
    header = ["agent", "grid points", "chosen", "wins", "effective actions/step",
              "model calls/game"]  # fmt: skip
    return table(header, rows, "llllrr")


def epicstar_replays(*files: Data) -> str:
    def wins(result: Data) -> str:
        return f"{result['wins']}/{result['games']} ({percent(result['win_rate'])})"

    rows = [
        [f"{_step(f['step'])}, {f['step']['max_actions']} action(s)", wins(f["replay"]),
         wins(f["expert"])]
        for f in files
    ]  # fmt: skip
    return table(["step", "replay-only episodic", "the expert"], rows, "lrr")


MORE: dict[str, Callable[..., str]] = {
    "episodic-retrieval-rows": episodic_retrieval_rows,
    "spire-calibration-full": spire_calibration_full,
    "spire-throughput-full": spire_throughput_full,
    "context-audit-fresh": context_audit_fresh,
    "context-audit-orders": context_audit_orders,
    "context-audit-full": context_audit_full,
    "epicstar-steps": epicstar_steps,
    "epicstar-agents": epicstar_agents,
    "epicstar-replays": epicstar_replays,
    "recovery-scripted": recovery_scripted,
    "recovery-embedded": recovery_embedded,
    "episodic-tokens": episodic_tokens,
    "kill-trials": kill_trials,
    "context-audit-cost": context_audit_cost,
    "context-audit-raw": context_audit_raw,
    "context-audit-layers": context_audit_layers,
    "layer-order-replays": layer_order_replays,
    "spire-calibration": spire_calibration,
    "spire-throughput": spire_throughput,
    "craft-calibration": craft_calibration,
    "workbench": workbench,
    "nethack-context-audit": nethack_context_audit,
    "episodic-retrieval": episodic_retrieval,
    "reply-modes": reply_modes,
}
