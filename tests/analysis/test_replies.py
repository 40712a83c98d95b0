"""A run's reply as the parity report names it (its differences: tests/analysis/test_parity.py)."""

from bounded.analysis.replies import OLDER_RUN, reply_label, reply_of
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


def test_a_reply_is_labelled_with_its_mode_and_the_format_sent():
    assert reply_label(reply_of(run("typed", SCHEMA))) == "constrained (json_schema)"
    assert reply_label(reply_of(run("x", IGNORED))) == "json (json_object, not honoured)"


def test_an_older_run_was_played_constrained():
    assert reply_of(run("old", None)) is OLDER_RUN
    assert reply_label(OLDER_RUN) == "constrained (format not recorded)"
