import pytest

from bounded.analysis.games import derived_score, floor_reached, floor_score
from bounded.analysis.stats import bootstrap_difference_interval
from bounded.analysis.tables import POOLED_LABEL, cell_table
from bounded.core import ConfigError, RunRecord


def run(
    tag, started, victory, *, status="completed", floor=20, tokens=1000, cell="", model="m",
    cached=0, wall_s=2.0,
):  # fmt: skip
    return RunRecord(
        run_id=f"{tag}-{model}-{started}", env_id="bounded/Spire-v0", contract="typed",
        model=model, seed=int(started), tag=tag, cell=cell or tag, status=status,
        started_at=started, outcome={"victory": victory, "final_floor": 50 if victory else floor},
        prompt_tokens=tokens, completion_tokens=0, cached_tokens=cached, decisions=10,
        model_calls=5, wall_s=wall_s,
    )  # fmt: skip


def test_derived_score_follows_equation_one():
    assert floor_score(True, 50) == 100
    assert floor_score(False, 17) == 17
    assert floor_score(False, 18) == pytest.approx(18 + 52 / 3)
    assert floor_score(False, 34) == pytest.approx(34 + 104 / 3)
    assert derived_score({"final_floor": 40, "outcome": "defeat"}) == pytest.approx(40 + 104 / 3)
    assert derived_score({"accuracy": 0.5}) == 50.0
    assert derived_score({"nothing": 1}) is None


def test_our_spire_runs_are_scored_by_the_environment_not_by_slay_the_spire_2s_floors():
    # A death on floor 17 after beating our act-1 boss (floor 16): the game's own score.
    ours = {"victory": False, "floor": 17, "bosses_beaten": 1, "score": 17 + 52 / 3}
    assert derived_score(ours) == pytest.approx(17 + 52 / 3)
    assert derived_score({"victory": False, "floor": 17}) is None  # no score, no guess


def test_only_completed_games_count_and_first_n_is_by_start_time():
    runs = [
        run("a", 3, True), run("a", 1, False), run("a", 2, False),
        run("a", 0.5, True, status="failed"), run("a", 4, True),
    ]  # fmt: skip
    table = cell_table(runs, first_n=3)
    row = table.row("a")
    assert (row.wins, row.games) == (1, 3)
    assert row.run_ids == ["a-m-1", "a-m-2", "a-m-3"]
    assert cell_table(runs).row("a").games == 4


def test_tags_are_never_pooled_unless_asked():
    runs = [run("a", 1, True, cell="x"), run("b", 2, False, cell="x")]
    assert [r.label for r in cell_table(runs, by=["cell"]).rows] == ["a / x", "b / x"]
    pooled = cell_table(runs, by=["cell"], pool_tags=True)
    assert [(r.label, r.games) for r in pooled.rows] == [("x", 2)]
    same = [run("x", 1, True, cell="x")]  # a cell named as its tag is named once
    assert [r.label for r in cell_table(same, by=["cell"]).rows] == ["x"]
    with pytest.raises(ConfigError, match="cannot group by"):
        cell_table(runs, by=["colour"])


def test_costs_pooled_row_and_fisher():
    runs = [run("a", i, i % 2 == 0, tokens=100 * (i + 1)) for i in range(4)]
    runs += [run("b", 10 + i, False, floor=10) for i in range(4)]
    table = cell_table(runs, pool_all=True, fisher=[("a", "b")])
    a = table.row("a")
    scores = [100, 20 + 52 / 3, 100, 20 + 52 / 3]
    assert a.mean_score == pytest.approx(sum(scores) / 4)
    assert a.tokens_per_game == pytest.approx(250)
    assert a.tokens_per_point == pytest.approx(1000 / sum(scores))
    assert (a.decisions_per_game, a.model_calls_per_game, a.wall_s_per_game) == (10, 5, 2)
    assert table.pooled.games == 8 and table.pooled.wins == 2
    assert table.pooled.interval == "clopper-pearson"
    assert table.fisher[0].p_value == pytest.approx(0.4286, abs=1e-3)
    with pytest.raises(ConfigError, match="no cell 'c'"):
        cell_table(runs, fisher=[("a", "c")])


def test_an_empty_tag_is_labelled():
    assert [r.label for r in cell_table([run("", 1, True)]).rows] == ["(none)"]


def test_explicit_cells_keep_their_order_and_show_empty_cells():
    runs = [run("a", 1, True), run("b", 2, False)]
    table = cell_table(runs, cells=[("second", "b"), ("first", "a"), ("none", "zzz")])
    assert [(r.label, r.games) for r in table.rows] == [("second", 1), ("first", 1), ("none", 0)]


def three_cells():
    runs = [run("a", i, i < 3) for i in range(5)]
    runs += [run("b", 10 + i, i < 1, floor=30) for i in range(5)]
    runs += [run("c", 20 + i, False, floor=10 + i) for i in range(4)]
    return runs


def test_the_pooled_row_pools_exactly_the_named_cells():
    table = cell_table(three_cells(), pool=["a", "c"])
    assert table.pooled.label == POOLED_LABEL and table.pooled_cells == ["a", "c"]
    assert (table.pooled.wins, table.pooled.games) == (3, 9)
    assert sorted(table.pooled.run_ids) == sorted(table.row("a").run_ids + table.row("c").run_ids)
    assert cell_table(three_cells(), pool_all=True).pooled.games == 14
    assert cell_table(three_cells()).pooled is None
    with pytest.raises(ConfigError, match="no cell 'd'"):
        cell_table(three_cells(), pool=["a", "d"])
    with pytest.raises(ConfigError, match="give one"):
        cell_table(three_cells(), pool=["a"], pool_all=True)


def test_score_difference_is_a_minus_b_with_an_independent_bootstrap():
    table = cell_table(three_cells(), diffs=[("a", "b"), ("b", "a")], seed=3)
    a, b = table.row("a"), table.row("b")
    forward, backward = table.diffs
    assert forward.difference == pytest.approx(a.mean_score - b.mean_score)
    assert backward.difference == pytest.approx(-forward.difference)
    assert (forward.low, forward.high) == bootstrap_difference_interval(a.scores, b.scores, seed=3)
    assert (forward.games_a, forward.games_b, forward.seed, forward.resamples) == (5, 5, 3, 5000)
    assert forward.low < forward.difference < forward.high
    with pytest.raises(ConfigError, match="no cell 'z'"):
        cell_table(three_cells(), diffs=[("a", "z")])


def test_a_cell_without_scores_cannot_be_compared():
    runs = [run("a", 1, True), run("a", 2, False)]
    runs += [r.model_copy(update={"outcome": {"victory": False}}) for r in (run("x", 3, False),)]
    with pytest.raises(ConfigError, match="'x' has no scores"):
        cell_table(runs, diffs=[("a", "x")])


def backbone_runs():
    """Two conditions under two models, the condition tags named per model."""
    runs = []
    for model, base_floor, frozen_floor in (("big", 20, 40), ("small", 10, 5)):
        runs += [run(f"{model}-base", i, False, floor=base_floor, model=model) for i in range(3)]
        runs += [
            run(f"{model}-frozen", 10 + i, False, floor=frozen_floor, model=model) for i in range(3)
        ]
    return runs


def test_explicit_cells_split_by_model_and_change_per_model():
    cells = [("base", ["big-base", "small-base"]), ("frozen", ["big-frozen", "small-frozen"])]
    table = cell_table(
        backbone_runs(), cells=cells, by=["model"], first_n=2, changes=[("base", "frozen")]
    )
    assert [(r.label, r.cell, r.group, r.games) for r in table.rows] == [
        ("base / big", "base", {"model": "big"}, 2),
        ("base / small", "base", {"model": "small"}, 2),
        ("frozen / big", "frozen", {"model": "big"}, 2),
        ("frozen / small", "frozen", {"model": "small"}, 2),
    ]
    big, small = table.changes
    base_big, frozen_big = 20 + 52 / 3, 40 + 104 / 3
    assert (big.label, big.a, big.b, big.group) == ("big", "base", "frozen", {"model": "big"})
    assert big.change_pct == pytest.approx(100 * (frozen_big - base_big) / base_big)
    assert small.change_pct == pytest.approx(-50.0)
    with pytest.raises(ConfigError, match="has 2 rows"):
        table.row("base")
    assert table.row("base / big").games == 2


def test_change_needs_groups_in_both_cells_and_known_cells():
    cells = [("base", ["big-base"]), ("frozen", ["small-frozen"])]
    with pytest.raises(ConfigError, match="no group has games in both"):
        cell_table(backbone_runs(), cells=cells, by=["model"], changes=[("base", "frozen")])
    with pytest.raises(ConfigError, match="no cell 'other'"):
        cell_table(backbone_runs(), cells=cells, changes=[("base", "other")])
    with pytest.raises(ConfigError, match="unique"):
        cell_table(backbone_runs(), cells=[("x", ["big-base"]), ("x", ["small-base"])])


def test_change_over_tag_rows_split_by_model():
    streams = [("base", "big", 20), ("frozen", "big", 30), ("base", "small", 10)]
    streams.append(("frozen", "small", 12))
    runs = [
        run(tag, i + 10 * j, False, floor=floor, model=model)
        for j, (tag, model, floor) in enumerate(streams)
        for i in range(2)
    ]
    table = cell_table(runs, by=["model"], changes=[("base", "frozen")])
    assert {c.label: round(c.change_pct, 1) for c in table.changes} == {
        "big": round(100 * (30 + 52 / 3 - 20 - 52 / 3) / (20 + 52 / 3), 1),
        "small": 20.0,
    }


def test_minutes_per_floor_and_fresh_tokens_per_point():
    runs = [
        run("a", 1, False, floor=20, tokens=1000, cached=600, wall_s=1200.0),
        run("a", 2, False, floor=10, tokens=500, cached=0, wall_s=600.0),
    ]
    row = cell_table(runs).row("a")
    points = (20 + 52 / 3) + 10
    assert row.mean_floor == 15
    assert row.minutes_per_floor == pytest.approx(30 / 30)  # 30 wall minutes over 30 floors
    assert row.tokens_per_point == pytest.approx(1500 / points)
    assert row.fresh_tokens_per_point == pytest.approx(900 / points)
    warehouse = run("w", 1, True).model_copy(update={"outcome": {"victory": True, "score": 5}})
    plain = cell_table([warehouse]).row("w")
    assert plain.minutes_per_floor is None and plain.mean_floor is None
    assert floor_reached({"floor": 7}) == 7 and floor_reached({"final_floor": 9.0}) == 9
    assert floor_reached({"floor": True}) is None


def test_rows_carry_fresh_tokens_cost_and_modelled_latency():
    from bounded.analysis.cost import CostModel, Latency, Prices

    local = run("a", 1, True, tokens=2000, cached=1500, model="local:smollm2")
    remote = run("b", 2, False, tokens=2000, cached=500, model="openai:gpt")
    costs = CostModel(
        default=Prices(input=1.0, cached_input=0.1, output=5.0),
        models={"openai:gpt": Prices(input=2.0, cached_input=0.5, output=8.0)},
        latency={"local:smollm2": Latency(prompt_tokens_per_s=100, output_tokens_per_s=10)},
    )
    table = cell_table([local, remote], costs=costs)
    a, b = table.row("a"), table.row("b")
    assert a.fresh_tokens_per_game == 500 and b.fresh_tokens_per_game == 1500
    assert a.cost_per_game == pytest.approx((500 * 1.0 + 1500 * 0.1) / 1e6)
    assert b.cost_per_game == pytest.approx((1500 * 2.0 + 500 * 0.5) / 1e6)
    assert a.cost_per_point == pytest.approx(a.cost_per_game / 100)
    assert a.latency_s_per_game == pytest.approx(500 / 100)
    assert b.latency_s_per_game is None  # no latency model for a hosted model
    several = local.model_copy(
        update={"usage": {
            "local:smollm2": {"prompt_tokens": 1000, "cached_tokens": 900, "completion_tokens": 0},
            "openai:gpt": {"prompt_tokens": 1000, "cached_tokens": 0, "completion_tokens": 0},
        }}
    )  # fmt: skip
    row = cell_table([several], costs=costs).row("a")
    assert row.cost_per_game == pytest.approx((100 + 900 * 0.1 + 1000 * 2.0) / 1e6)


def test_rows_split_by_the_reasoning_cap_in_force():
    def capped(started, victory, cap):
        record = run("typed", started, victory)
        params = {} if cap == "unrecorded" else {"reasoning_chars": cap}
        return record.model_copy(update={"run_id": f"r{started}", "model_params": params})

    runs = [capped(1, True, 120), capped(2, False, None), capped(3, True, None),
            capped(4, False, "unrecorded")]  # fmt: skip
    table = cell_table(runs, by=["tag", "reasoning_chars"])
    assert [(r.label, r.games, r.wins) for r in table.rows] == [
        ("typed / (none)", 1, 0),  # an older archive's run: no cap recorded
        ("typed / 120", 1, 1),
        ("typed / uncapped", 2, 1),
    ]
