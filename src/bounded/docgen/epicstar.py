"""EpicStar's reproduction in the craft game: the scripted agents per level
(`bench/epicstar_paper.py`), the step and settings chosen by calibration and the bank it
built (`bench/epicstar_calibration.py`), replay-only episodic memory against the expert
(`bench/epicstar_replay.py`) and the episodic agent's tokens (`bench/episodic_tokens.py`)."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, percent, table


def scripted_agents_by_level(data: Data) -> str:
    """Per agent and level, over all styles: wins and EpicStar's metrics, tokens and calls."""
    rows = [
        [
            r["tag"], r["level"], r["games"],
            f"{percent(r['win_rate'])} ({r['wins']}/{r['games']})",
            f"{r['pbr']:.3f}", f"{r['rur']:.1f}", f"{r['apu']:.3f}", f"{r['tr']:.3f}",
            f"{r['effective_actions_per_step']:.2f}", count(r["tokens_per_game"]),
            f"{r['model_calls_per_game']:.1f}",
        ]
        for r in data["rows"]
        if r["style"] is None
    ]  # fmt: skip
    header = [
        "tag", "level", "games", "win rate", "PBR", "RUR", "APU", "TR",
        "effective actions/step", "tokens/game", "calls/game",
    ]  # fmt: skip
    return table(header, rows) + f"\n{measured_under(data)}\n"


def episodic_over_summary_tokens(data: Data) -> str:
    """Tokens per game of `episodic` and `summary` per level, and their ratio."""
    tokens = {
        (row["tag"], row["level"]): row["tokens_per_game"]
        for row in data["rows"]
        if row["style"] is None
    }
    levels = sorted({level for _, level in tokens})
    rows = [
        [
            level, count(tokens[("episodic", level)]), count(tokens[("summary", level)]),
            f"{tokens[('episodic', level)] / tokens[('summary', level)]:.2f}",
        ]
        for level in levels
    ]  # fmt: skip
    header = ["level", "episodic tokens/game", "summary tokens/game", "episodic / summary"]
    return table(header, rows, "rrrr")


def _interval(step: Data) -> str:
    return f"{step['decision_interval']:g} s"


def expert_wins_by_step(data: Data) -> str:
    """The expert's wins at each calibrated step, the chosen one in bold."""
    steps = data["steps"]
    wins = [
        f"**{s['wins']}/{s['games']}**"
        if s["step"] == data["chosen_step"]
        else f"{s['wins']}/{s['games']}"
        for s in steps
    ]
    header = ["step (1 action)", *(_interval(s["step"]) for s in steps)]
    return table(header, [["expert wins", *wins]], "l" + "r" * len(steps))


def calibrated_agent_settings(data: Data) -> str:
    """Per agent: the grid searched, the settings chosen, and how they played."""
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


def calibration_bank(data: Data) -> str:
    """The bank calibration built (and every EpicStar measurement replays)."""
    bank, step = data["bank"], data["chosen_step"]
    row = [
        bank["map"], ", ".join(str(level) for level in bank["levels"]),
        f"{step['decision_interval']:g} s, {step['max_actions']} action(s)",
        bank["played"], bank["kept"], count(bank["entries"]), f"`{bank['sha256'][:12]}`",
    ]  # fmt: skip
    header = ["map", "levels", "step", "games played", "wins kept", "entries", "SHA-256"]
    return table(header, [row], "lllrrrl")


def replay_wins_by_step(*files: Data) -> str:
    """Per replay file (one step each): replay-only episodic's wins and the expert's."""

    def wins(result: Data) -> str:
        return f"{result['wins']}/{result['games']} ({percent(result['win_rate'])})"

    rows = [
        [f"{_interval(f['step'])}, {f['step']['max_actions']} action(s)", wins(f["replay"]),
         wins(f["expert"])]
        for f in files
    ]  # fmt: skip
    return table(["step", "replay-only episodic", "the expert"], rows, "lrr")


def episodic_agent_tokens(data: Data) -> str:
    """The episodic agents' wins, EpicStar's metrics, tokens and calls per game."""
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
