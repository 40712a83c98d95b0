"""The parity report: what, beside the memory contract, differs between compared cells."""

from __future__ import annotations

from bounded.analysis.parity import (
    parity_of_plan,
    parity_of_runs,
    render_parity_markdown,
    seed_text,
)
from bounded.analysis.tables import cell_table
from bounded.core import RunRecord


def run(tag: str, seed: int, *, rate: float = 1.0, **settings) -> RunRecord:
    params = {"temperature": settings.pop("temperature", 0.1), "max_tokens": 256}
    options = settings.pop("env_options", {"level": 5})
    return RunRecord(
        run_id=f"{tag}-{seed}-{rate}",
        env_id=settings.pop("env_id", "bounded/Craft-v0"),
        contract=tag,
        model=settings.pop("model", "local"),
        model_params=params,
        seed=seed,
        tag=tag,
        status="completed",
        outcome={"victory": False, "effective_action_rate": rate},
        spec={"env_options": options, **settings},
        decisions=100,
        model_calls=20,
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
        "parity: the cells differ in their memory contract alone (effective action rates "
        "within 10%; the same environment, seeds, model, reply, temperature, max_tokens, "
        "reasoning and environment options)"
    ]
    episodic = report.cells[0]
    assert episodic.model_calls_per_decision == 0.2
    assert episodic.prompt_tokens_per_decision == 500
    assert episodic.settings["seeds"] == "0-3 (4)"


def test_a_throttled_baseline_is_flagged_by_its_effective_action_rate() -> None:
    # Chain of Summarization at interval 5, 3 decisions a call: 0.53 effective actions a step
    report = parity_of_runs(
        cells(("episodic", [run("episodic", s, rate=0.83) for s in range(4)]),
              ("summary", [run("summary", s, rate=0.53) for s in range(4)]))
    )  # fmt: skip
    assert not report.matched
    assert report.lines() == ["parity: effective action rate differs: episodic 0.83; summary 0.53"]


def test_every_setting_beyond_the_contract_is_a_line() -> None:
    report = parity_of_runs(
        cells(
            ("a", [run("a", 0, temperature=0.1, env_options={"level": 5, "max_actions": 1})]),
            ("b", [run("b", 1, temperature=1.0, model="openai:x", contract_config={"reply": "text"},
                       env_options={"level": 5, "max_actions": 5})]),
        )
    )  # fmt: skip
    lines = report.lines()
    assert "parity: seeds differs: a 0 (1); b 1 (1)" in lines
    assert "parity: model differs: a local; b openai:x" in lines
    assert "parity: reply differs: a constrained; b text" in lines  # unrecorded: constrained
    assert "parity: temperature differs: a 0.1; b 1" in lines
    assert "parity: environment option max_actions differs: a 1; b 5" in lines
    assert not any("level" in line for line in lines)
    markdown = render_parity_markdown(report)
    assert markdown.splitlines()[0].startswith("| cell | games | effective actions/decision |")
    assert "- parity: model differs" in markdown


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
        "parity: effective action rate differs [env_id=bounded/NetHack-v0]: state 0.50; typed 1.00"
    ]
    assert {row.effective_action_rate for row in table.rows} == {0.9, 0.88, 1.0, 0.5}


def test_a_plan_is_checked_from_its_specs_and_its_contracts_bounds() -> None:
    spec = {"env": "craft", "model": "local", "temperature": 0.1, "max_tokens": 1280, "seed": 0}
    report = parity_of_plan(
        [("episodic", [spec]), ("summary", [{**spec, "contract_config": {"reasoning": False}}])],
        {"episodic": 1.0, "summary": 0.6},
        bounded=True,
    )
    assert report.lines() == [
        "parity: reasoning differs: episodic (contract default); summary off",
        "parity: effective action rate bound differs: episodic 1.00; summary 0.60",
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
