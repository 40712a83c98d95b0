"""The parity report: what, beside the memory under test, differs between compared cells,
treatments compared within each block of the design."""

from __future__ import annotations

from typing import Any

import pytest

from bounded.analysis.parity import (
    acting_rate,
    parity_of_plan,
    parity_of_runs,
    render_parity_markdown,
    seed_text,
)
from bounded.analysis.tables import cell_table
from bounded.core import RunRecord


def run(tag: str, seed: int, *, rate: float = 1.0, **settings: Any) -> RunRecord:
    params = {"temperature": settings.pop("temperature", 0.1), "max_tokens": 256,
              **settings.pop("params", {})}  # fmt: skip
    options = settings.pop("env_options", {"level": 5})
    outcome = {"victory": False, "effective_action_rate": rate, **settings.pop("outcome", {})}
    calls = settings.pop("model_calls", 20)
    return RunRecord(
        run_id=f"{tag}-{seed}-{rate}-{sorted(options.items())}",
        env_id=settings.pop("env_id", "bounded/Craft-v0"),
        contract=settings.pop("contract", tag),
        contract_config=settings.pop("config", {}),
        model=settings.pop("model", "local"),
        model_params=params,
        seed=seed,
        tag=tag,
        cell=settings.pop("cell", ""),
        status="completed",
        outcome=outcome,
        spec={"env_options": options, **settings},
        decisions=100,
        model_calls=calls,
        prompt_tokens=50_000,
        completion_tokens=2_000,
    )


def cells(*groups: tuple[str, list[RunRecord]]):
    return [(label, {}, runs) for label, runs in groups]


def test_cells_that_differ_in_memory_alone_say_so() -> None:
    report = parity_of_runs(
        cells(("episodic", [run("episodic", s, rate=0.83) for s in range(4)]),
              ("summary", [run("summary", s, rate=0.80) for s in range(4)]))
    )  # fmt: skip
    assert report.matched
    assert report.lines() == [
        "parity: the cells differ in their memory contract alone (acting rates within 10%; "
        "the same settings, seeds and environment options)"
    ]
    episodic = report.cells[0]
    assert episodic.model_calls_per_decision == 0.2
    assert episodic.prompt_tokens_per_decision == 500
    assert episodic.settings["seeds"] == "0-3 (4)"
    assert episodic.blocks == ["bounded/Craft-v0"]


def test_a_throttled_baseline_is_flagged_by_its_acting_rate() -> None:
    # Chain of Summarization at interval 5, 3 decisions a call: 0.53 effective actions a step
    report = parity_of_runs(
        cells(("episodic", [run("episodic", s, rate=0.83) for s in range(4)]),
              ("summary", [run("summary", s, rate=0.53) for s in range(4)]))
    )  # fmt: skip
    assert not report.matched
    assert report.lines() == ["parity: acting rate differs: episodic 0.83; summary 0.53"]


def test_plan_length_is_not_a_throttle() -> None:
    """Where a decision carries a plan (spire's expert, 1.9 actions a decision, and the same
    expert slipping, 1.7), every decision acts: the acting rate does not flag the policy."""
    expert = [run("expert", s, rate=1.9, outcome={"acting_rate": 1.0}) for s in range(3)]
    slipping = [run("slipping", s, rate=1.7, outcome={"acting_rate": 1.0}) for s in range(3)]
    report = parity_of_runs(cells(("expert", expert), ("slipping", slipping)))
    assert report.matched
    assert [cell.effective_action_rate for cell in report.cells] == pytest.approx([1.9, 1.7])


def test_an_agent_idling_on_fallbacks_is_flagged_against_one_that_acts() -> None:
    idle = {"acting_rate": 0.0, "fallback_rate": 1.0, "effective_action_rate": 0.0}
    acts = {"acting_rate": 1.0, "fallback_rate": 0.0}
    report = parity_of_runs(
        cells(("broken", [run("broken", s, rate=0.0, outcome=idle) for s in range(2)]),
              ("state", [run("state", s, outcome=acts) for s in range(2)]))
    )  # fmt: skip
    assert report.lines() == ["parity: acting rate differs: broken 0.00; state 1.00"]
    assert [cell.fallback_rate for cell in report.cells] == [1.0, 0.0]
    header, _, first, *_ = render_parity_markdown(report).splitlines()
    assert "| acting rate | fallback rate |" in header
    assert "| 0.00 | 1.00 |" in first


def test_an_older_runs_effective_rate_stands_for_its_acting_rate() -> None:
    assert acting_rate({"effective_action_rate": 0.6}) == 0.6
    assert acting_rate({"effective_action_rate": 1.9}) == 1.0
    assert acting_rate({"effective_action_rate": 1.9, "acting_rate": 0.5}) == 0.5
    assert acting_rate({}) is None


def test_every_setting_beyond_the_contract_is_a_line() -> None:
    report = parity_of_runs(
        cells(
            ("a", [run("a", 0, temperature=0.1, env_options={"level": 5, "max_actions": 1},
                       max_decisions=5, params={"fallback": "no-op", "sampling_seed": 0},
                       config={"description_temperature": 0.1, "text_grammar": "frame"})]),
            ("b", [run("b", 1, temperature=1.0, model="openai:x", contract_config={"reply": "text"},
                       env_options={"level": 5, "max_actions": 5}, max_decisions=15,
                       params={"fallback": "first-legal", "sampling_seed": None},
                       config={"description_temperature": 0.7, "text_grammar": None})]),
        )
    )  # fmt: skip
    lines = report.lines()
    assert "parity: seeds differs: a 0 (1); b 1 (1)" in lines
    assert "parity: model differs: a local; b openai:x" in lines
    assert "parity: reply differs: a constrained; b text" in lines  # unrecorded: constrained
    assert "parity: temperature differs: a 0.1; b 1" in lines
    assert "parity: max_decisions differs: a 5; b 15" in lines
    assert "parity: fallback differs: a no-op; b first-legal" in lines
    assert "parity: sampling_seed differs: a the game's; b none" in lines
    assert "parity: contract_config.description_temperature differs: a 0.1; b 0.7" in lines
    assert "parity: contract_config.text_grammar differs: a frame; b none" in lines
    assert "parity: environment option max_actions differs: a 1; b 5" in lines
    assert not any("level" in line for line in lines)
    markdown = render_parity_markdown(report)
    assert markdown.splitlines()[0].startswith("| cell | games | blocks | acting rate |")
    assert "- parity: model differs" in markdown


def test_the_keys_a_contract_declares_as_its_memory_are_not_compared() -> None:
    memory = {"memory_settings": ["exploration"]}
    report = parity_of_runs(
        cells(("full", [run("full", 0, params=memory, config={"exploration": True, "n": 3})]),
              ("ablated", [run("ablated", 0, params=memory,
                                config={"exploration": False, "n": 3})]))
    )  # fmt: skip
    assert report.matched
    older = parity_of_runs(  # a run that declares nothing: every key is compared
        cells(("full", [run("full", 0, config={"exploration": True})]),
              ("ablated", [run("ablated", 0, config={"exploration": False})]))
    )  # fmt: skip
    assert older.lines() == [
        "parity: contract_config.exploration differs: full true; ablated false"
    ]


def test_a_format_a_model_free_cell_never_sends_is_no_difference() -> None:
    asked = {"reply": {"mode": "text", "response_format": "none", "replies": 40}}
    never = {"reply": {"mode": "constrained", "response_format": "", "replies": 0}}
    report = parity_of_runs(
        cells(("episodic", [run("episodic", 0, params=asked)]),
              ("episodic-no-exploration", [run("episodic-no-exploration", 0, params=never,
                                               model_calls=0)]))
    )  # fmt: skip
    assert report.matched, report.lines()
    assert report.cells[1].settings.get("reply") is None


def test_a_multi_task_sweep_compares_treatments_within_each_block() -> None:
    """Three contracts on two BabyAI levels (a matrix): the level is the block, never a
    difference; a setting differing within one block is named with it."""
    runs = [
        run(tag, seed, env_id="bounded/BabyAI-v0", cell=f"{tag}[level={level}]",
            env_options={"level": level},
            max_decisions=15 if (tag, level) == ("c", "pickup") else 5)
        for tag in ("a", "b", "c") for level in ("goto", "pickup") for seed in range(3)
    ]  # fmt: skip
    report = parity_of_runs((tag, {}, [r for r in runs if r.tag == tag]) for tag in "abc")
    assert report.blocks == ["bounded/BabyAI-v0 level=goto", "bounded/BabyAI-v0 level=pickup"]
    assert report.lines() == [
        "parity: max_decisions differs [block=bounded/BabyAI-v0 level=pickup]: a 5; b 5; c 15",
        "parity: c mixes max_decisions: 5 / 15",
    ]
    matched = parity_of_runs((tag, {}, [r for r in runs if r.tag == tag]) for tag in "ab")
    assert matched.lines() == [
        "parity: the cells differ in their memory contract alone (acting rates within 10%; "
        "the same settings, seeds and environment options within each of 2 blocks)"
    ]


def test_an_option_that_differs_between_treatments_alone_is_a_confound() -> None:
    runs = [
        *(run("a", s, env_options={"level": lv, "max_steps": 64}) for s in range(2)
          for lv in (5, 6)),
        *(run("b", s, env_options={"level": lv, "max_steps": 128}) for s in range(2)
          for lv in (5, 6)),
    ]  # fmt: skip
    report = parity_of_runs((tag, {}, [r for r in runs if r.tag == tag]) for tag in "ab")
    assert report.lines() == ["parity: environment option max_steps differs: a 64; b 128"]


def test_rows_split_by_a_field_are_compared_within_their_group() -> None:
    runs = [
        run("typed", 0, env_id="bounded/Crafter-v0", rate=0.9),
        run("state", 0, env_id="bounded/Crafter-v0", rate=0.88),
        run("typed", 0, env_id="bounded/NetHack-v0", rate=1.0).model_copy(update={"run_id": "t"}),
        run("state", 0, env_id="bounded/NetHack-v0", rate=0.5).model_copy(update={"run_id": "s"}),
    ]
    table = cell_table(runs, by=["tag", "env_id"])
    assert table.parity is not None
    assert table.parity.lines() == [
        "parity: acting rate differs [env_id=bounded/NetHack-v0]: state 0.50; typed 1.00"
    ]
    assert {row.effective_action_rate for row in table.rows} == {0.9, 0.88, 1.0, 0.5}


def test_a_plan_is_checked_from_its_specs_and_its_contracts_bounds() -> None:
    spec = {"env": "craft", "model": "local", "temperature": 0.1, "max_tokens": 1280, "seed": 0}
    report = parity_of_plan(
        [("episodic", [{**spec, "tag": "episodic", "contract_config": {"reasoning_chars": None}}]),
         ("summary", [{**spec, "tag": "summary", "contract_config": {"reasoning": False}}])],
        {"episodic": 1.0, "summary": 0.6},
        bounded=True,
    )  # fmt: skip
    assert report.lines() == [
        "parity: reasoning differs: episodic uncapped; summary off",
        "parity: acting rate bound differs: episodic 1.00; summary 0.60",
    ]
    matched = parity_of_plan(
        [("a", [{**spec, "tag": "a"}]), ("b", [{**spec, "tag": "b"}])],
        {"a": 0.6, "b": 0.6},
        bounded=True,
    )
    assert matched.lines() == [
        "parity: the cells differ in their memory contract alone (acting rate bounds within "
        "10%, a bound: the played rates can be lower; the same settings, seeds and environment "
        "options)"
    ]


def test_seeds_print_compactly() -> None:
    assert seed_text([3, 0, 1, 2]) == "0-3 (4)"
    assert seed_text([1, 5]) == "1, 5 (2)"
    assert seed_text([]) == "-"


def test_a_reply_mode_difference_is_named_with_the_format_sent() -> None:
    constrained = run("a", 0)
    constrained.model_params["reply"] = {"mode": "constrained", "response_format": "grammar",
                                         "honoured": True}  # fmt: skip
    text = run("b", 0)
    text.model_params["reply"] = {"mode": "text", "response_format": "none", "honoured": None}
    broken = run("c", 0)
    broken.model_params["reply"] = {"mode": "json", "response_format": "json_object",
                                    "honoured": False}  # fmt: skip
    report = parity_of_runs(cells(("a", [constrained]), ("b", [text]), ("c", [broken])))
    assert report.lines() == [
        "parity: reply differs: a constrained (grammar); b text (none); "
        "c json (json_object, not honoured)"
    ]


def test_spires_expert_and_the_same_expert_slipping_act_alike() -> None:
    """Two players of known skill on spire (no empty action, no cadence): the expert plans
    about 1.8 actions a decision, slipping at 30% changes the plan's length, not how often
    it acts. The report flags neither the rate nor the skill, which is the treatment."""
    from bounded.runner import GameSpec, play

    runs = {
        tag: [
            play(GameSpec(
                env="spire", contract="bounded.contracts.expert:PlayerContract",
                contract_config={"expert": "bounded.envs.spire:SpireExpert", "slip": slip},
                model="scripted:minimal", seed=seed, tag=tag, max_decisions=60,
            ))
            for seed in (1, 2)
        ]
        for tag, slip in (("expert", 0.0), ("slipping", 0.3))
    }  # fmt: skip
    assert all(run.status == "completed" for played in runs.values() for run in played)
    report = parity_of_runs((tag, {}, played) for tag, played in runs.items())
    assert report.matched, report.lines()
    assert [cell.acting_rate for cell in report.cells] == [1.0, 1.0]
    rates = [cell.effective_action_rate for cell in report.cells]
    assert all(rate is not None and rate > 1.0 for rate in rates)


def test_runs_played_by_different_code_differ() -> None:
    """The code revision a run records (`RunRecord.code_revision`) is a setting: two cells
    played by different code differ in more than their memory."""
    old = run("a", 0).model_copy(update={"code_revision": "v0.1.0-12-gabc1234"})
    new = run("b", 0).model_copy(update={"code_revision": "v0.1.0-40-gdef5678-dirty"})
    report = parity_of_runs(cells(("a", [old]), ("b", [new])))
    assert report.lines() == [
        "parity: code_revision differs: a v0.1.0-12-gabc1234; b v0.1.0-40-gdef5678-dirty"
    ]
    alike = [run(tag, 0).model_copy(update={"code_revision": "v0.1.0-40-gdef5678"})
             for tag in "ab"]  # fmt: skip
    assert parity_of_runs(cells(("a", alike[:1]), ("b", alike[1:]))).matched
