"""The whole attribution path on real SQLite: a layer-dependent scripted model, so the
change rates and agreement rates are known exactly before anything is asked."""

import pytest

from bounded.archive import Archive
from bounded.attribution import (
    CONTROL,
    AttributionSpec,
    attribute,
    attribution_table,
    counterfactual_prompt,
    counterfactuals,
    plan_attribution,
)
from bounded.core import ConfigError, Prompt, Segment

from .conftest import HORIZON, SPEC_OPENING, layered_model

EMPTY = 'Your state: {"occupied":0,"shipped":0}'


def rows_by_kind(rows):
    return {(row.layer, row.variant, row.kind): row for row in attribution_table(rows)}


def test_removing_the_layer_the_model_reads_changes_every_decision(warehouse_archive):
    path, run_id = warehouse_archive
    spec = AttributionSpec(layers=["spec", "state"], replacements={"state": EMPTY})
    with Archive(path) as archive:
        plan = plan_attribution(archive, spec)
        assert plan.estimate()[0] == 2 * HORIZON
        model = layered_model()
        assert attribute(archive, plan, model=model) == 2 * HORIZON
        rows = counterfactuals(archive, run_id)
        states = {d.index: d.segments[1].text for d in archive.decisions(run_id)}
    assert len(model.calls) == 2 * HORIZON
    assert all(call["constraint"] is None for call in model.calls)  # the run's text mode
    table = rows_by_kind(rows)
    removed = table[("spec", "removed", "all")]
    assert (removed.decisions, removed.changed) == (HORIZON, HORIZON)
    assert (removed.original_agrees, removed.counterfactual_agrees) == (HORIZON, 0)
    assert removed.mcnemar_p == pytest.approx(2 * 0.5**HORIZON)
    assert removed.change_ci[0] > 0.7 and removed.change_ci[1] == pytest.approx(1.0)
    spec_rows = [row for row in rows if row.layer == "spec"]
    assert all(row.original_agrees and not row.counterfactual_agrees for row in spec_rows)
    assert all(not row.fallback and row.parse_error is None for row in spec_rows)
    assert all(row.model == "scripted:layered" for row in rows)
    # a state replaced by an empty warehouse's: the reply changes exactly where the archived
    # state was another, and the counterfactual then disagrees with the expert
    replaced = [row for row in rows if row.layer == "state"]
    assert all(row.variant.startswith("replaced:") for row in replaced)
    assert all(row.replacement == EMPTY for row in replaced)
    expected = {index for index, text in states.items() if text != EMPTY}
    assert 0 < len(expected) < HORIZON
    assert {row.index for row in replaced if row.changed} == expected
    assert {row.index for row in replaced if not row.counterfactual_agrees} == expected


def test_a_replacement_by_the_same_text_changes_nothing(warehouse_archive):
    path, run_id = warehouse_archive
    with Archive(path) as archive:
        spec_text = archive.decisions(run_id)[0].segments[0].text
        spec = AttributionSpec(layers=["spec"], replacements={"spec": spec_text})
        attribute(archive, plan_attribution(archive, spec), model=layered_model())
        row = rows_by_kind(counterfactuals(archive))[("spec", rows_variant(archive), "all")]
    assert (row.decisions, row.changed, row.counterfactual_agrees) == (HORIZON, 0, HORIZON)
    assert row.mcnemar_p == 1.0


def rows_variant(archive):
    return counterfactuals(archive)[0].variant


def test_a_killed_attribution_continues_where_it_stopped(warehouse_archive):
    path, _ = warehouse_archive
    spec = AttributionSpec(layers=["spec"], sample=8, seed=5)
    with Archive(path) as archive:
        first = plan_attribution(archive, spec)
        sampled = first.sampled
        assert attribute(archive, first, model=layered_model(), max_calls=3) == 3
    with Archive(path) as archive:
        again = plan_attribution(archive, spec)
        assert again.sampled == sampled  # the same seeded sample
        assert again.estimate()[0] == 5
        model = layered_model()
        assert attribute(archive, again, model=model) == 5
        assert len(model.calls) == 5
        assert plan_attribution(archive, spec).estimate()[0] == 0
        rows = counterfactuals(archive)
    assert sorted(row.index for row in rows) == next(iter(sampled.values()))
    assert len(rows) == 8 and all(row.changed for row in rows)


def test_samples_are_seeded_and_filtered_by_kind(warehouse_archive):
    path, _ = warehouse_archive
    with Archive(path) as archive:
        one = plan_attribution(archive, AttributionSpec(layers=["spec"], sample=4, seed=1))
        same = plan_attribution(archive, AttributionSpec(layers=["spec"], sample=4, seed=1))
        other = plan_attribution(archive, AttributionSpec(layers=["spec"], sample=4, seed=2))
        none = plan_attribution(archive, AttributionSpec(layers=["spec"], kinds=["combat"]))
        assert list(none.tasks()) == []  # the plan is walked in the open archive
    assert one.sampled == same.sampled != other.sampled
    with pytest.raises(ConfigError, match="replacement for L9"), Archive(path) as archive:
        plan_attribution(archive, AttributionSpec(layers=["spec"], replacements={"L9": ""}))


def test_the_counterfactual_prompt_drops_or_replaces_only_the_layer():
    segments = [
        Segment(layer="L1", role="system", text=SPEC_OPENING),
        Segment(layer="L3", role="user", text="rules a"),
        Segment(layer="L3", role="user", text="rules b"),
        Segment(layer="L2", role="user", text="state"),
    ]
    removed = counterfactual_prompt(segments, "L3")
    assert [s.text for s in removed.segments] == [SPEC_OPENING, "state"]
    replaced = counterfactual_prompt(segments, "L3", "other rules")
    assert [(s.layer, s.text) for s in replaced.segments] == [
        ("L1", SPEC_OPENING), ("L3", "other rules"), ("L2", "state"),
    ]  # fmt: skip


def test_a_control_asks_the_prompt_unchanged(warehouse_archive):
    path, _ = warehouse_archive
    with Archive(path) as archive:
        plan = plan_attribution(archive, AttributionSpec(layers=[CONTROL]))
        model = layered_model()
        attribute(archive, plan, model=model)
        row = rows_by_kind(counterfactuals(archive))[(CONTROL, "removed", "all")]
        first = archive.decisions(next(plan.runs()).run_id)[0]
    assert model.calls[0]["messages"] == Prompt(segments=first.segments).messages()
    assert (row.decisions, row.changed, row.counterfactual_agrees) == (HORIZON, 0, HORIZON)


def test_an_unusable_counterfactual_reply_falls_back_as_the_run_would(tmp_path):
    """A counterfactual whose reply is unusable executes what the runner would have: on
    NetHack, the game's default action (BALROG's `esc`), not the first legal action."""
    from bounded.models.scripted import ScriptedModel, schema_filler
    from bounded.runner import GameSpec, play

    path = tmp_path / "n.sqlite"
    spec = GameSpec(
        env="nethack", env_options={"max_steps": 3}, contract="typed",
        model="scripted:minimal", seed=0, tag="typed",
    )  # fmt: skip
    with Archive(path) as archive:
        run = play(spec, archive=archive, model=schema_filler())
        plan = plan_attribution(archive, AttributionSpec(layers=["L3"]))
        attribute(archive, plan, model=ScriptedModel(["not json"], cycle=True))
        rows = counterfactuals(archive, run.run_id)
    assert rows and all(row.fallback and row.parse_error for row in rows)
    assert {action.id for row in rows for action in row.actions} == {"esc"}


def test_a_run_whose_fallbacks_executed_the_default_action_replays(tmp_path):
    """`esc`, NetHack's default action, is accepted at a command although not listed there;
    the replay accepts it where the run executed it."""
    from bounded.attribution.replay import replay
    from bounded.models.scripted import ScriptedModel
    from bounded.runner import GameSpec, play

    spec = GameSpec(
        env="nethack", env_options={"max_steps": 4}, contract="state",
        model="scripted:minimal", seed=0, tag="state",
    )  # fmt: skip
    with Archive(tmp_path / "n.sqlite") as archive:
        run = play(spec, archive=archive, model=ScriptedModel(["not json"], cycle=True))
        records = archive.decisions(run.run_id)
    assert {a.id for r in records for a in r.actions} == {"esc"}
    assert all(r.kind == "command" for r in records)
    replayed = replay(run, records, range(4))
    assert sorted(replayed) == [0, 1, 2, 3]


def test_an_unusable_counterfactual_cos_reply_that_plays_the_empty_action_is_a_fallback(tmp_path):
    """CoS (`summary`) plays craft's empty action where a reply gives no decision; the
    runner counts that a fallback (`idles_for_an_unusable_reply`), and so does a
    counterfactual whose reply is unusable, though its decision holds an action."""
    from bounded.envs.craft.env import EMPTY_ACTION
    from bounded.models.scripted import ScriptedModel
    from bounded.runner import GameSpec, play

    spec = GameSpec(
        env="craft", env_options={"time_limit": 300}, contract="summary",
        contract_config={"interval": 2, "decisions": 1, "reply": "text"},
        model="scripted:acting", seed=1, tag="summary", max_decisions=6,
    )  # fmt: skip
    acting = ScriptedModel(["Decisions:\n0: <TRAIN PROBE>"], cycle=True)
    with Archive(tmp_path / "c.sqlite") as archive:
        run = play(spec, archive=archive, model=acting)
        assert not any(record.fallback for record in archive.decisions(run.run_id))
        plan = plan_attribution(archive, AttributionSpec(layers=[CONTROL]))
        unusable = ScriptedModel(["I am not sure what to do here."], cycle=True)
        assert attribute(archive, plan, model=unusable) > 0
        rows = counterfactuals(archive, run.run_id)
    assert rows and all(row.parse_error for row in rows)
    assert {action.id for row in rows for action in row.actions} == {EMPTY_ACTION}
    assert all(row.fallback for row in rows)
