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
    assert line.startswith("parity: acting rate differs: cos-matched 0.")
    assert "cos-throttled 0." in line
    code, out = call(capsys, "analyze", str(craft_archive), "--json")
    parity = json.loads(out)["parity"]
    assert [d["setting"] for d in parity["differences"]] == ["acting rate"]
    rates = {cell["label"]: cell["acting_rate"] for cell in parity["cells"]}
    assert rates["cos-throttled"] < 0.9 * rates["cos-matched"]


def test_craft_table_shows_the_effective_rate_and_the_parity_line(capsys, craft_archive) -> None:
    code, out = call(capsys, "craft-table", str(craft_archive), "--by-style")
    assert code == 0
    assert "| tag | level | style |" in out and "effective actions/step" in out
    assert "- parity: acting rate differs: cos-matched" in out


def test_the_report_holds_the_parity_table(tmp_path, craft_archive) -> None:
    from bounded.report import build_report

    page = build_report(craft_archive, tmp_path / "r.html").read_text()
    assert 'id="parity-table-0"' in page
    assert "parity: acting rate differs" in page


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
    assert "parity: acting rate bound differs: throttled 0.60; matched 1.00" in out.splitlines()
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
        "parity: fallback differs: state no-op; summary game-default",
        "parity: environment option decision_interval differs [block=craft]: state "
        "(default); summary 2",
        "parity: environment option max_actions differs [block=craft]: state (default); summary 1",
        "parity: acting rate bound differs [environment=craft]: state 1.00; summary 0.60",
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


def dry_run_lines(capsys, tmp_path, env: str, cells: dict[str, str]) -> list[str]:
    """The parity lines of a dry run of one cell per tag, each with its own settings."""
    path = tmp_path / "e.toml"
    path.write_text(
        '[experiment]\nname = "settings"\narchive = "' + str(tmp_path / "e.sqlite") + '"\n'
        f'[defaults]\nmodel = "scripted:minimal"\ngames = 1\nenv = "{env}"\n'
        + OPTIONS[env]
        + "".join(f'[[cells]]\ntag = "{tag}"\n{body}\n' for tag, body in cells.items())
    )
    code, out = call(capsys, "sweep", str(path), "--dry-run")
    assert code == 0, out
    return [line for line in out.splitlines() if line.startswith("parity:")]


MISSED = {
    "max_decisions": (
        "warehouse",
        {"a": 'contract = "state"\nmax_decisions = 5',
         "b": 'contract = "state"\nmax_decisions = 15'},
        "parity: max_decisions differs: a 5; b 15",
    ),
    "text rule": (
        "warehouse",
        {"a": 'contract = "state"\nreply = "text"',
         "b": 'contract = "state"\nreply = "text"\n'
              'contract_config = { text_rule = "decision-tag" }'},
        "parity: contract_config.text_rule differs: a json-block; b decision-tag",
    ),
    "grammar": (
        "warehouse",
        {"a": 'contract = "state"\nreply = "text"',
         "b": 'contract = "state"\nreply = "text"\nmodel_options = { text_grammar = "frame" }'},
        "parity: model_options.text_grammar differs: a (default); b frame",
    ),
    "a contract's own calls": (
        "craft",
        {"a": 'contract = "episodic"',
         "b": 'contract = "episodic"\n'
              "contract_config = { description_temperature = 0.7, description_max_tokens = 60 }"},
        "parity: contract_config.description_max_tokens differs: a 120; b 60",
    ),
    "fallback policy": (
        "warehouse",
        {"state": 'contract = "state"', "transcript": 'contract = "transcript"'},
        "parity: fallback differs: state no-op; transcript first-legal",
    ),
}  # fmt: skip


@pytest.mark.parametrize("setting", sorted(MISSED))
def test_the_dry_run_flags_every_setting_beside_the_memory(capsys, tmp_path, setting) -> None:
    env, cells, expected = MISSED[setting]
    lines = dry_run_lines(capsys, tmp_path, env, cells)
    assert expected in lines, lines
    if setting == "a contract's own calls":
        assert "parity: contract_config.description_temperature differs: a 0.1; b 0.7" in lines


def test_the_dry_run_does_not_flag_a_model_free_ablations_reply(capsys, tmp_path) -> None:
    """EpicStar without exploration never asks the model on craft (retrieval, else the empty
    action): the format its reply would have is no difference, nor is the memory its preset
    turns off."""
    cells = {"episodic": 'contract = "episodic"',
             "episodic-no-exploration": 'contract = "episodic-no-exploration"'}  # fmt: skip
    lines = dry_run_lines(capsys, tmp_path, "craft", cells)
    assert lines == [
        "parity: the cells differ in their memory contract alone (acting rate bounds within "
        "10%, a bound: the played rates can be lower; the same settings, seeds and environment "
        "options)"
    ]


def test_analyze_names_a_setting_a_tag_mixes(capsys, tmp_path) -> None:
    """Two `max_decisions` under one tag are neither its memory nor a task: the table's
    parity report says the tag mixes them, never pools them silently."""
    from bounded.models.scripted import schema_filler

    path = tmp_path / "mixed.sqlite"
    with Archive(path) as archive:
        for tag, contract, limits in (
            ("state", "state", (3, 5)),
            ("transcript", "transcript", (3, 3)),
        ):
            for seed, limit in zip((1, 2), limits, strict=True):
                spec = GameSpec(
                    env="warehouse", env_options={"horizon": 6}, contract=contract,
                    model="scripted:minimal", seed=seed, tag=tag, max_decisions=limit,
                )  # fmt: skip
                run = play(spec, model=schema_filler(), archive=archive)
                assert run.status == "completed", run.error
    code, out = call(capsys, "analyze", str(path))
    assert code == 0, out
    lines = [line for line in out.splitlines() if line.startswith("parity:")]
    assert "parity: state mixes max_decisions: 3 / 5" in lines
    assert "parity: max_decisions differs: state 3/5; transcript 3" in lines


def test_the_dry_run_names_the_settings_the_played_games_differ_in(capsys, tmp_path) -> None:
    """What the dry run flags is what the table of the played games flags: the same
    settings (the rates aside: the dry run's are bounds; the played reply names the format
    sent too)."""
    cells = {"a": 'contract = "state"\nmax_decisions = 3',
             "b": 'contract = "transcript"\nmax_decisions = 4'}  # fmt: skip
    planned = dry_run_lines(capsys, tmp_path, "warehouse", cells)
    code, out = call(capsys, "sweep", str(tmp_path / "e.toml"))
    assert code == 0, out
    code, out = call(capsys, "analyze", str(tmp_path / "e.sqlite"))
    assert code == 0, out
    played = [line for line in out.splitlines() if line.startswith("parity:")]
    assert "parity: max_decisions differs: a 3; b 4" in played
    assert "parity: fallback differs: a no-op; b first-legal" in played
    assert "parity: reply differs: a text (none); b constrained (constraint)" in played
    assert "parity: reply differs: a text; b constrained" in planned  # the format: not yet sent

    def settings(lines: list[str]) -> list[str]:
        return [line.split(" differs")[0] for line in lines if " rate" not in line]

    assert settings(planned) == settings(played)
