"""What an agent really did: fallbacks, parse errors and invalid actions per cell, and the
games won on fallbacks, counted from a real archive's decisions and left out on request.

On BabyAI's GoTo a free-text reply without JSON falls back to the game's default action,
`go forward`, on every decision; seeds 0 and 7 put the goal straight ahead, so those
games are won by the fallback alone (found by playing seeds 0-11 once)."""

import json

import pytest
import typer
from typer.testing import CliRunner

from bounded.analysis.fallbacks import decision_tallies
from bounded.archive import Archive
from bounded.cli.analyze import analyze
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

TURN = '{"reasoning": "", "action": {"id": "turn left", "args": {}}}'
FLY = '{"reasoning": "", "action": {"id": "fly", "args": {}}}'
CELLS = {"turning": TURN, "nojson": "I would go forward.", "flying": FLY}
SEEDS = (0, 1, 7)


@pytest.fixture(scope="module")
def fallback_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("fallbacks") / "f.sqlite"
    with Archive(path) as archive:
        for tag, reply in CELLS.items():
            for seed in SEEDS:
                run_episode(
                    make("babyai", level="goto", max_steps=12), make_contract("state"),
                    ScriptedModel([reply], cycle=True), seed=seed, env_id="bounded/BabyAI-v0",
                    tag=tag, archive=archive,
                )  # fmt: skip
    return path


def invoke(*args):
    app = typer.Typer()
    app.command()(analyze)
    return CliRunner().invoke(app, [str(arg) for arg in args], terminal_width=400)


def test_tallies_count_each_runs_recorded_decisions(fallback_archive):
    with Archive(fallback_archive, read_only=True) as archive:
        runs = {run.run_id: run for run in archive.runs()}
        tallies = decision_tallies(archive)
    for run_id, tally in tallies.items():
        run = runs[run_id]
        assert tally.decisions == run.decisions
        falls_back = run.tag != "turning"
        assert tally.fallbacks == (run.decisions if falls_back else 0)
        assert tally.invalid_actions == (run.decisions if run.tag == "flying" else 0)


def test_analyze_shows_the_cell_that_fell_back_on_every_decision(fallback_archive):
    result = invoke(fallback_archive, "--json")
    assert result.exit_code == 0, result.output
    rows = {row["label"]: row for row in json.loads(result.output)["rows"]}
    assert rows["nojson"]["fallback_rate"] == 1.0 and rows["turning"]["fallback_rate"] == 0.0
    assert rows["nojson"]["parse_error_rate"] == 1.0 and rows["turning"]["parse_error_rate"] == 0
    assert rows["flying"]["invalid_action_rate"] == 1.0
    assert rows["nojson"]["invalid_action_rate"] == 0.0
    # seeds 0 and 7 are won by `go forward`, in both cells that fall back
    assert rows["nojson"]["wins"] == rows["nojson"]["fallback_wins"] == 2
    assert rows["turning"]["fallback_wins"] == 0
    text = invoke(fallback_archive).output
    assert column(text, "fallback %", "nojson") == "100.0"
    assert column(text, "fallback %", "turning") == "0.0"
    assert column(text, "parse error %", "nojson") == "100.0"
    assert column(text, "invalid actions/decision", "flying") == "1.00"


def column(text: str, header: str, row: str) -> str:
    """The entry of `row` under `header` in the printed (possibly folded) table."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if header in line)
    index = [part.strip() for part in lines[at].split("┃")].index(header)
    line = next(line for line in lines[at:] if line.startswith(f"│ {row} "))
    return line.split("│")[index].strip()


def test_the_option_leaves_fallback_wins_out_and_prints_the_count(fallback_archive):
    kept = " ".join(invoke(fallback_archive).output.split())
    wins = sum(1 for seed in SEEDS if seed in (0, 7)) * 2  # nojson and flying
    assert f"games won on fallbacks (a decision executed a fallback): {wins} of {wins} wins" in kept
    left = invoke(fallback_archive, "--exclude-fallback-wins")
    assert left.exit_code == 0, left.output
    text = " ".join(left.output.split())
    assert "left out 4 games won on fallbacks (--exclude-fallback-wins): " in text
    assert "nojson 2" in text and "turning 0" in text
    rows = {
        row["label"]: row
        for row in json.loads(invoke(fallback_archive, "--exclude-fallback-wins", "--json").output)[
            "rows"
        ]
    }
    assert (rows["nojson"]["games"], rows["nojson"]["wins"]) == (1, 0)
    assert rows["nojson"]["fallback_wins_left_out"] == 2 and rows["turning"]["games"] == 3
