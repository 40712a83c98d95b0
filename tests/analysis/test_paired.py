"""Paired comparisons on (block, seed): the pooled and per-block rows agree with the
statistics computed here on the same pairs, pairing narrows the interval where the pairs
are correlated, the same seed in two blocks is two pairs, Holm covers every test of a
call, and a comparison of cells with different seed sets lists the games left unpaired
(on a real archive of scripted games)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from bounded.analysis.games import CompletedGame
from bounded.analysis.options import TableOptions
from bounded.analysis.paired import adjust_holm, compare_paired, pair_games
from bounded.analysis.stratified import stratified_t, tango_interval
from bounded.archive import Archive
from bounded.core import ConfigError, RunRecord


def game(cell, seed, victory, score=None, progress=None):
    return CompletedGame(
        run_id=f"{cell}-{seed}", tag=cell, experiment="x", cell=cell, env_id="e", contract="c",
        model="m", seed=seed, started_at=float(seed), victory=victory, score=score,
        progress=progress, prompt_tokens=0, completion_tokens=0, decisions=1, model_calls=0,
        wall_s=0.0,
    )  # fmt: skip


def correlated_wins(rng, n, rate_a, rate_b, share):
    """Win indicators of A and B on n seeds: with chance `share` a seed's deal decides
    both (one uniform draw), else each side draws its own."""
    common = rng.random(n)
    together = rng.random(n) < share
    a = np.where(together, common, rng.random(n)) < rate_a
    b = np.where(together, common, rng.random(n)) < rate_b
    return a, b


def two_blocks(rng):
    """A and B on seeds 0-19 of two blocks with different base rates; A's games in block
    `hard` renamed so that run ids stay unique."""
    games_a, games_b, blocks = [], [], {}
    for block, rate in (("easy", 0.7), ("hard", 0.2)):
        a, b = correlated_wins(rng, 20, rate + 0.1, rate, 0.5)
        progress = rng.normal(60 if block == "easy" else 20, 10, 20)
        for seed in range(20):
            for cell, won, games, shift in (("A", a, games_a, 5.0), ("B", b, games_b, 0.0)):
                found = game(cell, seed, bool(won[seed]), progress=float(progress[seed] + shift
                             + rng.normal(0, 3)))  # fmt: skip
                found = found.model_copy(update={"run_id": f"{cell}-{block}-{seed}"})
                games.append(found)
                blocks[found.run_id] = block
    return games_a, games_b, blocks


def test_the_same_seed_in_two_blocks_is_two_pairs_and_each_block_a_row():
    games_a, games_b, blocks = two_blocks(np.random.default_rng(1))
    with pytest.raises(ConfigError, match="holds seed 0 2 times"):
        pair_games("A", games_a, "B", games_b)  # paired on the seed alone: refused
    found = compare_paired("A", games_a, "B", games_b, blocks=blocks)
    assert found.pairs == 40 and found.blocks == ["easy", "hard"]
    assert [w.block for w in found.block_wins] == ["easy", "hard"]
    assert found.wins is not None and found.wins.block is None
    for w in [found.wins, *found.block_wins]:
        mine = [(a.victory, b.victory) for a, b in zip(games_a, games_b, strict=True)
                if w.block in (None, blocks[a.run_id])]  # fmt: skip
        only_a = sum(a and not b for a, b in mine)
        only_b = sum(b and not a for a, b in mine)
        assert (w.only_a, w.only_b, w.pairs) == (only_a, only_b, len(mine))
        expected = mcnemar([[0, only_a], [only_b, 0]], exact=False, correction=True).pvalue
        if only_a != only_b:
            assert w.p_value == pytest.approx(expected)
        assert w.exact_p == pytest.approx(stats.binomtest(only_a, only_a + only_b).pvalue)
        assert (w.low, w.high) == pytest.approx(tango_interval(only_a, only_b, len(mine)))
    progress = next(m for m in found.means if m.metric == "progress")
    diffs = {
        block: [a.progress - b.progress for a, b in zip(games_a, games_b, strict=True)
                if blocks[a.run_id] == block]
        for block in ("easy", "hard")
    }  # fmt: skip
    pooled = stratified_t(list(diffs.values()))
    assert (progress.low, progress.high, progress.p_value) == pytest.approx(
        (pooled.low, pooled.high, pooled.p_value)
    )
    easy = next(m for m in found.block_means if m.block == "easy" and m.metric == "progress")
    expected_easy = stats.ttest_1samp(diffs["easy"], 0.0)
    assert easy.p_value == pytest.approx(expected_easy.pvalue)
    assert easy.unpaired_low is None and progress.unpaired_low is not None


def test_pairing_narrows_the_interval_when_the_deal_decides_most_of_the_outcome():
    rng = np.random.default_rng(3)
    a_wins, b_wins = correlated_wins(rng, 200, 0.45, 0.3, 0.8)
    deal = rng.normal(50, 20, 200)
    games_a = [
        game("A", s, bool(w), float(d + 5))
        for s, (w, d) in enumerate(zip(a_wins, deal, strict=True))
    ]
    games_b = [
        game("B", s, bool(w), float(d + rng.normal(0, 3)))
        for s, (w, d) in enumerate(zip(b_wins, deal, strict=True))
    ]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.wins is not None and found.wins.narrowing is not None
    assert found.wins.narrowing > 0.2
    score = next(m for m in found.means if m.metric == "score")
    assert score.narrowing is not None and score.narrowing > 0.5
    assert score.low <= 5 <= score.high
    assert score.bootstrap_low <= 5 <= score.bootstrap_high


def test_independent_outcomes_gain_nothing_from_pairing():
    rng = np.random.default_rng(5)
    games_a = [game("A", s, bool(rng.random() < 0.4)) for s in range(300)]
    games_b = [game("B", s, bool(rng.random() < 0.4)) for s in range(300)]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.wins is not None and abs(found.wins.narrowing or 0) < 0.1


def test_games_without_a_partner_are_listed_and_a_repeated_seed_refused():
    games_a = [game("A", s, s % 2 == 0) for s in (1, 2, 3, 4)]
    games_b = [game("B", s, s % 3 == 0) for s in (3, 4, 5)]
    pairs, only_a, only_b = pair_games("A", games_a, "B", games_b)
    assert [(a.seed, b.seed) for a, b in pairs.values()] == [(3, 3), (4, 4)]
    assert [g.seed for g in only_a] == [1, 2] and [g.seed for g in only_b] == [5]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.pairs == 2
    assert [g.seed for g in found.unpaired_a] == [1, 2]
    assert [g.run_id for g in found.unpaired_b] == ["B-5"]
    with pytest.raises(ConfigError, match="holds seed 3 2 times"):
        pair_games("A", [*games_a, game("A", 3, True)], "B", games_b)


def test_holm_adjusts_every_test_of_the_call_together():
    rng = np.random.default_rng(11)
    games_a, games_b, blocks = two_blocks(rng)
    games_c = [g.model_copy(update={"run_id": "C" + g.run_id[1:], "cell": "C", "tag": "C"})
               for g in games_b]  # fmt: skip
    blocks.update({"C" + k[1:]: v for k, v in blocks.items() if k.startswith("B")})
    comparisons = [
        compare_paired("A", games_a, "B", games_b, blocks=blocks),
        compare_paired("B", games_b, "C", games_c, blocks=blocks),
    ]
    rows = [row for c in comparisons for row in c.tests() if not np.isnan(row.p_value)]
    # per comparison: wins and progress, pooled and in each of the two blocks
    assert adjust_holm(comparisons) == len(rows) == 12
    raw = [row.p_value for row in rows]
    adjusted = [row.p_holm for row in rows]
    order = np.argsort(raw)
    running = 0.0
    for rank, index in enumerate(order):  # Holm by hand: step down, monotone, capped at 1
        running = max(running, min(1.0, (len(raw) - rank) * raw[index]))
        assert adjusted[index] == pytest.approx(running)


REPLY = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'


def test_analyze_compare_on_cells_with_different_seed_sets_lists_the_unpaired_games(tmp_path):
    (tmp_path / "replies.jsonl").write_text(REPLY + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "unpaired"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            env_options = {{ horizon = 4 }}

            [[cells]]
            tag = "state"
            contract = "state"
            seeds = [1, 2, 3, 4]

            [[cells]]
            tag = "transcript"
            contract = "transcript"
            seeds = [3, 4, 5]
            """
        )
    )
    bounded = [sys.executable, "-m", "bounded.cli"]
    swept = subprocess.run([*bounded, "sweep", str(path)], capture_output=True, text=True)
    assert swept.returncode == 0, swept.stderr
    archive = tmp_path / "a.sqlite"
    shown = subprocess.run(
        [*bounded, "analyze", str(archive), "--compare", "state,transcript"],
        capture_output=True, text=True, env={"COLUMNS": "200", **dict(__import__("os").environ)},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    state_line = next(line for line in lines if line.startswith("unpaired: 2 games of state"))
    assert "seed 1 (" in state_line and "seed 2 (" in state_line
    assert any(
        line.startswith("unpaired: 1 games of transcript") and "seed 5 (" in line for line in lines
    )
    with Archive(archive, read_only=True) as store:
        assert len(store.runs()) == 7
    bad = subprocess.run(
        [*bounded, "analyze", str(archive), "--compare", "state"], capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "--compare takes two cell labels" in bad.stderr


def known_skill_runs(rng, seeds, rates_b, effect, share):
    """The archive rows of two players of known skill on three levels (blocks) with
    different base rates: B wins a level's game with the level's rate, A with that rate
    plus `effect`, and with chance `share` a seed's deal decides both."""
    runs, truth = [], {}
    for level, rate in rates_b.items():
        common, together = rng.random(seeds), rng.random(seeds) < share
        for tag, chance in (("A", rate + effect), ("B", rate)):
            won = np.where(together, common, rng.random(seeds)) < chance
            for seed in range(seeds):
                truth[(tag, level, seed)] = bool(won[seed])
                runs.append(RunRecord(
                    run_id=f"{tag}-{level}-{seed}", env_id="bounded/BabyAI-v0",
                    contract="player", model="none", seed=seed, tag=tag, experiment="known",
                    cell=f"{tag}[level={level}]", status="completed", started_at=float(seed),
                    outcome={"victory": bool(won[seed]), "progress": float(won[seed])},
                    spec={"env": "babyai", "env_options": {"level": level}, "tag": tag},
                ))  # fmt: skip
    return runs, truth


def test_an_archive_of_known_skill_players_on_three_levels_is_compared_within_levels(tmp_path):
    # the analysis path (a real archive, the design's blocks, the table's rows) gives the
    # statistics of the pairs it holds, which test_stratified checks for coverage and level
    # over 400 simulated sweeps; pooled as independent samples the same games say less
    rates_b = {"goto": 0.2, "pickup": 0.5, "open": 0.8}
    runs, truth = known_skill_runs(np.random.default_rng(9), 12, rates_b, 0.15, 0.7)
    with Archive(tmp_path / "known.sqlite") as store:
        for run in runs:
            store.save_run(run)
    with Archive(tmp_path / "known.sqlite", read_only=True) as store:
        archived = store.runs()
    table = TableOptions(compares=[("A", "B")]).compute(archived)
    (found,) = table.paired
    assert found.pairs == 36 and len(found.blocks) == 3 and not found.unpaired_a
    only_a = sum(truth[("A", lv, s)] and not truth[("B", lv, s)] for lv in rates_b
                 for s in range(12))  # fmt: skip
    only_b = sum(truth[("B", lv, s)] and not truth[("A", lv, s)] for lv in rates_b
                 for s in range(12))  # fmt: skip
    assert found.wins is not None
    assert (found.wins.only_a, found.wins.only_b) == (only_a, only_b)
    assert (found.wins.low, found.wins.high) == pytest.approx(tango_interval(only_a, only_b, 36))
    assert found.wins.narrowing is not None
    assert found.wins.unpaired_p is not None and found.wins.unpaired_p != found.wins.p_value
    progress = next(m for m in found.means if m.metric == "progress")
    blocks = [[100.0 * (truth[("A", lv, s)] - truth[("B", lv, s)]) for s in range(12)]
              for lv in sorted(rates_b)]  # fmt: skip
    assert progress.p_value == pytest.approx(stratified_t(blocks).p_value)
    assert [w.block for w in found.block_wins] == [f"babyai level={lv}" for lv in sorted(rates_b)]
