"""The layer-attribution section in a real headless Chromium: the per-layer table per
decision kind, and a changed decision one click away with both prompts side by side."""

import pytest

from bounded.archive import Archive
from bounded.attribution import AttributionSpec, attribute, plan_attribution
from bounded.envs.warehouse import state_keeping_reply
from bounded.models.scripted import ScriptedModel
from bounded.report import build_report
from bounded.report.attribution import attribution_section

HORIZON = 5


def layered_reply(messages, constraint=None):
    reply = state_keeping_reply(messages)
    if not messages[0]["content"].startswith("You run a warehouse"):
        reply["action"]["args"]["shipped"] += 1
    return reply


@pytest.fixture
def attributed_archive(tmp_path):
    from bounded.runner import GameSpec, play

    path = tmp_path / "a.sqlite"
    model = ScriptedModel(layered_reply, id="layered")
    spec = GameSpec(env="warehouse", env_options={"horizon": HORIZON}, contract="state",
                    model="layered", seed=4)  # fmt: skip
    with Archive(path) as archive:
        play(spec, archive=archive, model=model)
        plan = plan_attribution(archive, AttributionSpec(layers=["spec"]))
        attribute(archive, plan, model=ScriptedModel(layered_reply, id="layered"))
    return path


def test_the_section_counts_what_the_table_holds(attributed_archive):
    with Archive(attributed_archive, read_only=True) as archive:
        section = attribution_section(archive)
    labels = [(item["row"].layer, item["row"].kind) for item in section["rows"]]
    assert labels == [("spec", "all"), ("spec", "stream")]
    spec_row = section["rows"][0]["row"]
    assert (spec_row.decisions, spec_row.changed) == (HORIZON, HORIZON)
    assert len(section["changes"]["spec|removed|layered|stream"]) == HORIZON


def test_a_changed_decision_opens_side_by_side(browser_page, attributed_archive, tmp_path):
    path = build_report(attributed_archive, tmp_path / "report.html")
    page = browser_page
    page.goto(path.as_uri())
    rows = page.locator("#attribution-table tbody tr")
    assert rows.count() == 2
    first = rows.nth(1).locator("td").all_inner_texts()
    assert first[:5] == ["spec · layered", "stream", str(HORIZON), str(HORIZON), "100.0"]
    assert page.locator("#counterfactual-viewer").is_hidden()
    rows.nth(1).locator(".change-link").nth(2).click()
    assert page.locator("#counterfactual-viewer").is_visible()
    assert "decision 2 · stream · layer spec" in page.locator("#counterfactual-header").inner_text()
    original = page.locator("#counterfactual-original .segment").evaluate_all(
        "els => els.map(e => e.dataset.layer)"
    )
    changed = page.locator("#counterfactual-changed .segment").evaluate_all(
        "els => els.map(e => e.dataset.layer)"
    )
    assert original == ["spec", "state", "observation"]
    assert changed == ["state", "observation"]
    original_action = page.locator("#counterfactual-original .action").inner_text()
    changed_action = page.locator("#counterfactual-changed .action").inner_text()
    assert "(= expert)" in original_action and "(= expert)" not in changed_action
    assert original_action != changed_action
    assert page.errors == []
