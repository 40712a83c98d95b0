import pytest

from bounded.analysis.games import derived_score, floor_score
from bounded.analysis.tables import cell_table
from bounded.core import ConfigError, RunRecord


def run(tag, started, victory, *, status="completed", floor=20, tokens=1000, cell=""):
    return RunRecord(
        run_id=f"{tag}-{started}", env_id="bounded/Spire-v0", contract="typed", model="m",
        seed=int(started), tag=tag, cell=cell or tag, status=status, started_at=started,
        outcome={"victory": victory, "final_floor": 50 if victory else floor},
        prompt_tokens=tokens, completion_tokens=0, decisions=10, model_calls=5, wall_s=2.0,
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
    assert row.run_ids == ["a-1", "a-2", "a-3"]
    assert cell_table(runs).row("a").games == 4


def test_tags_are_never_pooled_unless_asked():
    runs = [run("a", 1, True, cell="x"), run("b", 2, False, cell="x")]
    assert [r.label for r in cell_table(runs, by=["cell"]).rows] == ["a / x", "b / x"]
    pooled = cell_table(runs, by=["cell"], pool_tags=True)
    assert [(r.label, r.games) for r in pooled.rows] == [("x", 2)]
    with pytest.raises(ConfigError, match="cannot group by"):
        cell_table(runs, by=["colour"])


def test_costs_pooled_row_and_fisher():
    runs = [run("a", i, i % 2 == 0, tokens=100 * (i + 1)) for i in range(4)]
    runs += [run("b", 10 + i, False, floor=10) for i in range(4)]
    table = cell_table(runs, pool=True, fisher=[("a", "b")])
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
