"""Every command that sets cells side by side prints the parity report under its table."""

from __future__ import annotations

import json

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.jobs.scripted_players import ExpertExplorer
from bounded.runner import GameSpec, play

THROTTLED = {"interval": 5, "decisions": 3}
MATCHED = {"interval": 1, "decisions": 1}
SHORT = {"level": 3, "map": "highlands", "time_limit": 240}


def call(capsys, *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
        raise SystemExit(0)
    out, _ = capsys.readouterr()
    return int(exit_info.value.code or 0), out


@pytest.fixture(scope="module")
def craft_archive(tmp_path_factory):
    """Chain of Summarization throttled (3 actions per 5 steps) and at one action a step,
    on the same two short craft games, with the scripted explorer."""
    path = tmp_path_factory.mktemp("parity") / "craft.sqlite"
    with Archive(path) as archive:
        for tag, config in (("cos-throttled", THROTTLED), ("cos-matched", MATCHED)):
            for seed in (1, 2):
                explorer = ExpertExplorer()
                spec = GameSpec(
                    env="craft", env_options={**SHORT, "style": "rush"}, contract="summary",
                    contract_config=config, model=explorer.model.id, seed=seed, tag=tag,
                )  # fmt: skip
                run = play(spec, model=explorer.model, observer=explorer.see, archive=archive)
                assert run.status == "completed", run.error
    return path


def test_analyze_names_the_throttled_cell_under_its_table(capsys, craft_archive) -> None:
    code, out = call(capsys, "analyze", str(craft_archive))
    assert code == 0
    [line] = [line for line in out.splitlines() if line.startswith("parity:")]
    assert line.startswith("parity: effective action rate differs: cos-matched 0.")
    assert "cos-throttled 0." in line
    code, out = call(capsys, "analyze", str(craft_archive), "--json")
    parity = json.loads(out)["parity"]
    assert [d["setting"] for d in parity["differences"]] == ["effective action rate"]
    rates = {cell["label"]: cell["effective_action_rate"] for cell in parity["cells"]}
    assert rates["cos-throttled"] < 0.9 * rates["cos-matched"]


def test_craft_table_shows_the_effective_rate_and_the_parity_line(capsys, craft_archive) -> None:
    code, out = call(capsys, "craft-table", str(craft_archive), "--by-style")
    assert code == 0
    assert "| tag | level | style |" in out and "effective actions/step" in out
    assert "- parity: effective action rate differs: cos-matched" in out


def test_the_report_holds_the_parity_table(tmp_path, craft_archive) -> None:
    from bounded.report import build_report

    page = build_report(craft_archive, tmp_path / "r.html").read_text()
    assert 'id="parity-table-0"' in page
    assert "parity: effective action rate differs" in page


def test_the_dry_run_flags_a_throttled_baseline_before_any_game(capsys, tmp_path) -> None:
    path = tmp_path / "e.toml"
    path.write_text(
        '[experiment]\nname = "p"\narchive = "' + str(tmp_path / "p.sqlite") + '"\n'
        '[defaults]\nenv = "craft"\nmodel = "scripted:minimal"\ngames = 1\n'
        "env_options = { level = 3, time_limit = 60 }\n"
        '[[cells]]\ntag = "throttled"\ncontract = "summary"\n'
        "contract_config = { interval = 5, decisions = 3 }\n"
        '[[cells]]\ntag = "matched"\ncontract = "summary"\n'
        "contract_config = { interval = 3, decisions = 3 }\n"
    )
    code, out = call(capsys, "sweep", str(path), "--dry-run")
    assert code == 0, out
    assert (
        "parity: effective action rate bound differs: throttled 0.60; matched 1.00"
        in out.splitlines()
    )
    assert not (tmp_path / "p.sqlite").exists()


CELL = '[[cells]]\nname = "{tag}.{env}"\ntag = "{tag}"\ncontract = "{tag}"\nenv = "{env}"\n'
OPTIONS = {"warehouse": "env_options = { horizon = 3 }\n",
           "craft": "env_options = { level = 3, time_limit = 60 }\n",
           "babyai": 'env_options = { level = "goto", max_steps = 5 }\n'}  # fmt: skip


def dry_run_parity(capsys, tmp_path, cells: list[tuple[str, str]]) -> list[str]:
    path = tmp_path / "e.toml"
    path.write_text(
        '[experiment]\nname = "envs"\narchive = "' + str(tmp_path / "e.sqlite") + '"\n'
        '[defaults]\nmodel = "scripted:minimal"\ngames = 1\ntemperature = 0.0\n'
        + "".join(CELL.format(tag=tag, env=env) + OPTIONS[env] for tag, env in cells)
    )
    code, out = call(capsys, "sweep", str(path), "--dry-run")
    assert code == 0, out
    return [line for line in out.splitlines() if line.startswith("parity:")]


def test_the_dry_run_compares_cells_within_one_environment(capsys, tmp_path) -> None:
    """Two contracts on two environments: each environment's cells are compared with each
    other, never a warehouse cell with a craft one."""
    cells = [("state", "warehouse"), ("summary", "warehouse"), ("state", "craft"),
             ("summary", "craft")]  # fmt: skip
    assert dry_run_parity(capsys, tmp_path, cells) == [
        "parity: environment option decision_interval differs [environment=craft]: state "
        "(default); summary 2",
        "parity: environment option max_actions differs [environment=craft]: state (default); "
        "summary 1",
        "parity: effective action rate bound differs [environment=craft]: state 1.00; summary 0.60",
    ]


def test_cells_on_different_environments_are_not_compared(capsys, tmp_path) -> None:
    assert dry_run_parity(capsys, tmp_path, [("state", "warehouse"), ("summary", "craft")]) == []


def test_the_dry_run_flags_a_balrog_agent_on_balrogs_presentation_beside_another(
    capsys, tmp_path
) -> None:
    """`balrog-naive` plays BabyAI at BALROG's presentation (other levels, text and actions)
    unless told; beside `state` at bounded's, the dry run says so before any game."""
    lines = dry_run_parity(capsys, tmp_path, [("state", "babyai"), ("balrog-naive", "babyai")])
    assert (
        "parity: environment option presentation differs: state (default); balrog-naive balrog"
        in lines
    )
