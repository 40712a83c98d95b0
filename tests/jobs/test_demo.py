import bounded
from bounded.archive import Archive
from bounded.jobs.demo import player_hp, run_demo, run_spire_demo, spire_summary
from bounded.models.scripted import schema_filler


def test_spire_demo_plays_act_one_under_the_typed_contract(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        result = run_spire_demo(schema_filler(), acts=1, seed=3, archive=archive)
        decisions = archive.decisions(result.run.run_id)
    run = result.run
    assert run.status == "completed" and run.contract == "typed"
    assert run.outcome["act"] == 1 and run.outcome["floor"] <= 16
    assert run.decisions == len(decisions) > 0
    assert sum(result.tokens_by_layer.values()) == sum(
        sum(d.tokens_by_layer.values()) for d in decisions
    )
    layers = {segment.layer for d in decisions for segment in d.segments}
    assert {"L1", "L2"} <= layers
    summary = spire_summary(result, tmp_path / "a.sqlite")
    assert summary.row_count >= 8


def test_warehouse_demo_compares_both_contracts_at_each_horizon():
    rows = run_demo(schema_filler(), [3, 6], seed=1)
    assert [(r.horizon, r.contract) for r in rows] == [
        (3, "transcript"), (3, "state"), (6, "transcript"), (6, "state"),
    ]  # fmt: skip
    assert rows[2].last_prompt_tokens > rows[0].last_prompt_tokens


def test_the_demo_shows_the_players_hp():
    obs, _ = bounded.make("spire").reset(seed=1)
    hp, max_hp = obs.state["player"]["hp"], obs.state["player"]["max_hp"]
    assert player_hp(obs.state) == f"{hp}/{max_hp}" and hp > 0
