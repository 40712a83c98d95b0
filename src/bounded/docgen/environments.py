"""The environments: the spire's and the craft game's calibrations by scripted players
(`bench/spire_calibration.py`, `bench/craft_calibration.py`), the spire's throughput
(`bench/spire_throughput.py`), the workbench suite (`bench/workbench.py`), NetHack's prompt
sizes (`bench/nethack_context_audit.py`) and TextWorld's first game on a fresh machine
(`bench/textworld_first_game.py`)."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, percent, table


def _wilson(cell: Data) -> str:
    low, high = cell["win_rate_ci95"]
    return f"{100 * low:.1f}-{100 * high:.1f}%"


def spire_expert_calibration(data: Data) -> str:
    """The expert's win rate per ascension, and the random player's in one row."""
    rows = [
        [c["player"], c["ascension"], percent(c["win_rate"]), _wilson(c), f"{c['mean_floor']:.1f}"]
        for c in data["cells"]
        if c["player"] == "expert"
    ]
    random = [c for c in data["cells"] if c["player"] == "random"]
    floors = [c["mean_floor"] for c in random]
    rows.append([
        "random", " / ".join(str(c["ascension"]) for c in random),
        percent(max(c["win_rate"] for c in random), 0), "",
        f"{min(floors):.1f}-{max(floors):.1f}",
    ])  # fmt: skip
    return table(["player", "ascension", "win rate", "95% CI", "mean floor"], rows)


def spire_calibration_cells(data: Data) -> str:
    """Every calibration cell with its score, bosses and deaths by act."""
    rows = []
    for c in data["cells"]:
        deaths = " / ".join(str(c["deaths_by_act"][act]) for act in ("1", "2", "3", "4"))
        rows.append([
            c["player"], c["ascension"], percent(c["win_rate"]), _wilson(c),
            f"{c['mean_floor']:.1f}", f"{c['mean_score']:.1f}", f"{c['mean_bosses_beaten']:.2f}",
            deaths,
        ])  # fmt: skip
    header = ["player", "ascension", "win rate", "95% CI (Wilson)", "mean floor", "mean score",
              "bosses beaten", "deaths in act 1 / 2 / 3 / final"]  # fmt: skip
    return table(header, rows)


def _spire_load(data: Data) -> str:
    load = ", ".join(f"{x:.2f}" for x in data["machine"]["load_avg"])
    return f"\nLoad average at the end (1, 5, 15 minutes): {load}. {measured_under(data)}\n"


def spire_throughput_by_player(data: Data) -> str:
    """Runs, decisions, actions per wall second and per CPU second of each spire player."""
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
    return table(header, rows) + _spire_load(data)


def spire_decisions_per_cpu_second(data: Data) -> str:
    """Decisions per CPU second of each spire player, short."""
    names = {
        "expert": "expert, full three-act runs",
        "random": "random, full runs",
        "decapitate_the_spire": "decapitate-the-spire 0.2.0, greedy, Act 1 only",
    }
    rows = [[label, count(data[key]["runs"]), count(data[key]["decisions_per_cpu_s"])]
            for key, label in names.items()]  # fmt: skip
    return table(["player", "runs", "decisions per CPU-second"], rows) + _spire_load(data)


CRAFT_STYLES = ("timing", "rush", "power", "macro", "air")


def craft_win_rates(data: Data) -> str:
    """The craft game's win rate per level and opponent style, and over all styles."""
    levels = sorted({c["level"] for c in data["cells"]})
    cell = {(c["level"], c["style"]): c for c in data["cells"]}
    rows = []
    for level in levels:
        cells = [cell[(level, style)] for style in CRAFT_STYLES]
        wins, games = sum(c["wins"] for c in cells), sum(c["games"] for c in cells)
        rows.append([level, *(f"{c['win_rate']:.2f}" for c in cells), f"{wins / games:.2f}"])
    return table(["level", *CRAFT_STYLES, "all"], rows)


WORKBENCH_MODES = {"multi": "multi-action", "single": "one call per turn"}


def workbench_cells(data: Data) -> str:
    """The workbench suite's cells; with the model's completion tokens, finishes and time
    when it is not the expert."""
    local = data["settings"]["model"] != "expert"
    rows = []
    for cell in data["cells"]:
        done = cell["rows"]
        row = [
            cell["contract"], WORKBENCH_MODES[cell["mode"]], f"{cell['passed']}/{cell['tasks']}",
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


NETHACK_CONTRACTS = {
    "typed": "`typed` (L1, L3 NetHack rules, L5 NetHack skills, L2)",
    "state": "`state`",
    "transcript (unbounded, computed)": "`transcript` (computed)",
}


def nethack_prompt_growth(data: Data) -> str:
    """NetHack's prompt per contract: first, last, slope, total, and when it outgrows the
    window."""
    rows = []
    for key, label in NETHACK_CONTRACTS.items():
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


def textworld_first_game(data: Data) -> str:
    """A fresh process with an empty home to the first observation of a TextWorld game at
    bounded's presentation, then with the cache present."""
    rows = []
    for r in data["rows"]:
        cold, warm = r["cold"], r.get("warm") or {}
        first = cold.get("first_observation_s")
        rows.append([
            r["task"], r["seed"], "shipped" if r["shipped"] else "generated",
            cold.get("error") or f"**{first:.2f}**",
            "" if "reset_s" not in cold else f"{cold['reset_s']:.2f}",
            "" if "first_observation_s" not in warm else f"{warm['first_observation_s']:.2f}",
            "" if "cpu_s" not in cold else f"{cold['cpu_s']:.2f}",
        ])  # fmt: skip
    header = [
        "task", "seed", "game", "first observation, empty home (s)",
        "of which reset (unpack or generate + load)", "cache present (s)",
        "CPU seconds, empty home",
    ]  # fmt: skip
    note = (
        f"{data['shipped_games']} games shipped ({count(data['archive_bytes'])} bytes of xz); "
        f"target under {data['target_s']} s."
    )
    return table(header, rows, "lrlrrrr") + f"\n{note}\n\n{measured_under(data)}\n"
