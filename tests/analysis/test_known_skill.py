"""Coverage and level of the stratified paired comparison on archives of players of known
skill: `PlayerContract` games of `bounded.testing.known_skill` (one decision among a
block's doors; a seed's deal picks the winning door and may lock the game for both
players), played through the episode loop, archived, read back and compared on (block,
seed) by the path `bounded analyze --compare` takes (the design's blocks, the pairs, the
pooled McNemar test with Tango's interval). Three blocks with different base rates; the
truth is each player's known chance to win (`win_rate`). The check is of coverage and
level over 400 simulated sweeps, never of which player wins."""

import math

import numpy as np
import pytest

from bounded.analysis.games import completed_games
from bounded.analysis.paired import pair_games, run_designs, win_comparison
from bounded.archive import Archive
from bounded.contracts.expert import PlayerContract
from bounded.models.none import NoModel
from bounded.runner.episode import run_episode
from bounded.runner.spec import GameSpec
from bounded.testing.known_skill import DoorsEnv, win_rate

SWEEPS = 400
SEEDS = 8
"""Seeds per block in one sweep (3 blocks: 24 pairs a comparison)."""
BLOCKS = ((2, 0.2), (4, 0.5), (10, 0.7))
"""(doors, locked) of each block: the players' base rates differ by block."""
PLAYERS = {"A": 0.2, "B": 0.9, "A2": 0.2 + 1e-9}
"""Slips: A vs B differ by known amounts; A vs A2 are of one skill (their slips differ by
1e-9 only so that their random draws are independent: a slip seeds the player's draws)."""
EXPERT = "bounded.testing.known_skill:DoorsExpert"
CONTRACT = "bounded.contracts.expert:PlayerContract"
MONTE_CARLO = 2 * math.sqrt(0.05 * 0.95 / SWEEPS)
"""Two Monte Carlo standard errors of a rejection rate of 5% over SWEEPS sweeps."""


def truth(a: str, b: str) -> float:
    """The known difference of A's and B's win rates over the blocks (equal seeds each)."""
    return float(
        np.mean([win_rate(PLAYERS[a], d, q) - win_rate(PLAYERS[b], d, q) for d, q in BLOCKS])
    )


def play(tag: str, doors: int, locked: float, seed: int, sweep: int):
    cell = f"{tag}[doors={doors},locked={locked}]"
    config = {"expert": EXPERT, "slip": PLAYERS[tag]}
    spec = GameSpec(
        env="doors", env_options={"doors": doors, "locked": locked}, contract=CONTRACT,
        contract_config=config, model="none", seed=seed, tag=tag, cell=cell,
        experiment=f"sweep{sweep}",
    )  # fmt: skip
    return run_episode(
        DoorsEnv(doors=doors, locked=locked), PlayerContract(expert=EXPERT, slip=PLAYERS[tag]),
        NoModel(), seed=seed, env_id="doors", tag=tag, experiment=spec.experiment, cell=cell,
        spec=spec,
    )  # fmt: skip


def seeds_of(sweep: int, block: int) -> range:
    """A block's seeds in one sweep: no seed in two blocks or two sweeps, since a seed deals
    the game and the players' draws alike (the same seed on two blocks would tie them)."""
    start = (sweep * len(BLOCKS) + block) * SEEDS
    return range(start, start + SEEDS)


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """SWEEPS sweeps (each on its own seeds) of every player on every block, in one archive
    (an experiment per sweep), read back grouped by sweep."""
    path = tmp_path_factory.mktemp("known") / "known.sqlite"
    with Archive(path) as store:
        for sweep in range(SWEEPS):
            for index, (doors, locked) in enumerate(BLOCKS):
                for seed in seeds_of(sweep, index):
                    for tag in PLAYERS:
                        store.save_run(play(tag, doors, locked, seed, sweep))
    with Archive(path, read_only=True) as store:
        runs = store.runs()
    grouped: dict[str, list] = {}
    for run in runs:
        grouped.setdefault(run.experiment, []).append(run)
    assert len(grouped) == SWEEPS
    return list(grouped.values())


def compared(runs, a: str, b: str):
    """analyze's comparison of two treatments of one sweep: pooled wins over the blocks."""
    designs = run_designs(runs)
    blocks = {run_id: block for run_id, (_, block) in designs.items()}
    games = completed_games(runs)
    mine = [g for g in games if designs[g.run_id][0] == a]
    theirs = [g for g in games if designs[g.run_id][0] == b]
    pairs, unpaired_a, unpaired_b = pair_games(a, mine, b, theirs, blocks)
    assert len(pairs) == SEEDS * len(BLOCKS) and not unpaired_a and not unpaired_b
    assert len({block for block, _ in pairs}) == len(BLOCKS)
    return win_comparison(pairs)


def test_the_players_win_at_their_known_rates(sweeps):
    runs = [run for sweep in sweeps for run in sweep]
    for tag, slip in PLAYERS.items():
        for doors, locked in BLOCKS:
            won = [run.outcome["victory"] for run in runs if run.tag == tag
                   and run.spec["env_options"]["doors"] == doors]  # fmt: skip
            n, expected = len(won), win_rate(slip, doors, locked)
            assert abs(np.mean(won) - expected) <= 4 * math.sqrt(expected * (1 - expected) / n)


@pytest.mark.parametrize(("a", "b"), [("A", "B"), ("A", "A2")])
def test_the_stratified_interval_covers_the_truth_and_the_test_keeps_its_level(sweeps, a, b):
    known = truth(a, b)
    found = [compared(runs, a, b) for runs in sweeps]
    coverage = np.mean([w.low <= known <= w.high for w in found])
    rejected = np.mean([w.p_value <= 0.05 for w in found])
    print(f"{a} - {b}: truth {known:+.4f}, coverage {coverage:.4f}, rejected {rejected:.4f}")
    assert coverage >= 0.93, (coverage, known)
    if a == "A" and b == "A2":  # no difference (to 1e-9)
        assert rejected <= 0.05 + MONTE_CARLO, rejected


def test_the_pooled_unpaired_comparison_and_the_stratified_one_differ(sweeps):
    # the same games as independent samples, pooled over blocks of different base rates,
    # ignore the deal two players share: a weaker test where there is a difference, a
    # wider interval where there is none
    differing = [compared(runs, "A", "B") for runs in sweeps]
    paired = sum(w.p_value <= 0.05 for w in differing)
    unpaired = sum(w.unpaired_p <= 0.05 for w in differing)
    print(f"A - B rejected: paired {paired}, unpaired {unpaired} of {SWEEPS}")
    assert paired > 1.2 * unpaired
    alike = [compared(runs, "A", "A2") for runs in sweeps]
    widths = [(w.high - w.low) / (w.unpaired_high - w.unpaired_low) for w in alike]
    print(f"A - A2: paired width / unpaired width {np.mean(widths):.3f}")
    assert np.mean(widths) < 0.95
