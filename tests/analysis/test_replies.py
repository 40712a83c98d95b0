"""A comparison whose runs differ in reply mode says so, in one line."""

from bounded.analysis.replies import OLDER_RUN, mode_difference, reply_groups, reply_of
from bounded.core import RunRecord


def run(tag: str, reply: dict | None, status: str = "completed") -> RunRecord:
    params = {"reply": reply} if reply is not None else {}
    return RunRecord(
        run_id=tag, env_id="e", contract="c", model="m", seed=1, tag=tag, status=status,
        model_params=params,
    )  # fmt: skip


TEXT = {"mode": "text", "response_format": "none", "honoured": None}
SCHEMA = {"mode": "constrained", "response_format": "json_schema", "honoured": True}
IGNORED = {"mode": "json", "response_format": "json_object", "honoured": False}


def test_runs_in_one_mode_need_no_note():
    assert mode_difference([run("a", SCHEMA), run("b", SCHEMA)]) is None


def test_a_mode_difference_is_named_with_the_tags_of_each_side():
    line = mode_difference([run("typed", SCHEMA), run("balrog-naive", TEXT), run("x", IGNORED)])
    assert line is not None and "\n" not in line
    assert "constrained (json_schema) in typed" in line and "text (none) in balrog-naive" in line
    assert "json (json_object, not honoured) in x" in line


def test_an_older_run_was_played_constrained_and_failed_runs_are_left_out():
    assert reply_of(run("old", None)) is OLDER_RUN
    groups = reply_groups([run("old", None), run("t", TEXT, status="failed")])
    assert groups == {"constrained (format not recorded)": ["old"]}
