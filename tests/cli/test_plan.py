"""`bounded plan` on AgenticSTS's released cells (10 games each) prints the games per cell
of a textbook calculation (Connor's formula with Edwards' continuity correction, worked
here by hand), says which figures it took from the archive and which it assumed, and
gives the smallest difference 10 games can detect; on an experiment file it uses the
earlier games of the same cells and prices the games still to play, and on a matrix file
it takes treatment names and plans seeds per block; mistakes are one line and exit 2."""

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bounded.analysis.power import connor_power, detectable_win_difference, joint
from bounded.archive import Archive
from bounded.importers import import_agenticsts

HISTORY = Path(__file__).resolve().parents[2].parent / "shared/reference/agenticsts/history.jsonl"
BASELINE = "gemini-pilot-2026-05-08-A0-baseline"  # 3 wins in 10 completed games
SKILLS = "gemini-pilot-2026-05-08-A0-full-frozen"  # 6 wins in 10
Z_975, Z_80 = 1.959964, 0.841621
"""z(0.975) and z(0.80), from a table of the standard normal distribution."""
BOUNDED = [sys.executable, "-m", "bounded.cli"]


@pytest.fixture(scope="module")
def agenticsts(tmp_path_factory):
    if not HISTORY.is_file():
        pytest.fail(f"the AgenticSTS reference data is missing: {HISTORY}")
    path = tmp_path_factory.mktemp("agenticsts") / "a.sqlite"
    with Archive(path) as store:
        import_agenticsts(HISTORY, store)
    return path


def bounded(*args):
    env = {**os.environ, "COLUMNS": "300"}
    return subprocess.run([*BOUNDED, *args], capture_output=True, text=True, env=env)


def by_hand(rate_a, rate_b):
    """Connor (1987) with no correlation: p10 = pA (1 - pB), p01 = (1 - pA) pB; then the
    fewest n from there on at which the continuity-corrected test's normal approximation,
    Phi((n delta - 1 - z sqrt(n psi)) / sqrt(n (psi - delta^2))), reaches 80%."""
    p10, p01 = rate_a * (1 - rate_b), (1 - rate_a) * rate_b
    psi, delta = p10 + p01, p10 - p01
    n = math.ceil((Z_975 * math.sqrt(psi) + Z_80 * math.sqrt(psi - delta**2)) ** 2 / delta**2)
    while (n * delta - 1 - Z_975 * math.sqrt(n * psi)) / math.sqrt(n * (psi - delta**2)) < Z_80:
        n += 1
    return n


def test_plan_on_agenticsts_released_cells_matches_the_textbook_calculation(agenticsts):
    shown = bounded("plan", str(agenticsts), "--compare", SKILLS, BASELINE)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    # the observed 6/10 against 3/10: (1.96 sqrt(0.54) + 0.84 sqrt(0.45))^2 / 0.09 = 44.7,
    # and the correction asks for 7 more
    assert by_hand(0.6, 0.3) == 52
    assert (
        "games per cell: 52 (Connor's formula, continuity-corrected for "
        "+30.0 points of win rate)" in out
    )
    assert "uses effect +0.300: the observed difference of the archive's win rates" in out
    assert "uses B's win rate 0.300: observed in the archive (10 games)" in out
    # the release records no seed, so no game is paired and no correlation observed
    assert "uses pair correlation 0: assumed (no common seeds in the archive" in out
    # 10 pairs against B's 3/10 detect nothing: even A winning every game leaves
    # (7 - 1 - 1.96 sqrt(7)) / sqrt(10 x 0.21) = 0.56 < z(0.8)
    assert (7 - 1 - Z_975 * math.sqrt(7)) / math.sqrt(10 * 0.21) < Z_80
    assert detectable_win_difference(10, 0.3) is None
    assert (
        "the archive holds 10 and 10 games: the smallest difference 10 pairs detect with "
        "80% power: none" in out
    )
    smallest = detectable_win_difference(40, 0.3)
    assert smallest is not None
    assert connor_power(40, joint(0.3 + smallest, 0.3)) == pytest.approx(0.8, abs=1e-4)
    assert "cost: not estimated" in out


def test_plan_for_a_given_effect_from_the_archives_baseline(agenticsts):
    shown = bounded("plan", str(agenticsts), "--compare", SKILLS, BASELINE, "--effect", "0.2")
    assert shown.returncode == 0, shown.stderr
    # 0.5 against 0.3: (1.96 sqrt(0.5) + 0.84 sqrt(0.46))^2 / 0.04 = 95.7, corrected: 106
    assert by_hand(0.5, 0.3) == 106
    assert (
        "games per cell: 106 (Connor's formula, continuity-corrected for "
        "+20.0 points of win rate)" in shown.stdout
    )


def player_file(tmp_path, games):
    path = tmp_path / "players.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "players"
            archive = "{tmp_path / "p.sqlite"}"

            [defaults]
            env = "spire"
            model = "none"
            contract = "bounded.contracts.expert:PlayerContract"
            games = {games}

            [[cells]]
            tag = "expert"
            contract_config = {{ expert = "bounded.envs.spire:SpireExpert", slip = 0.0 }}

            [[cells]]
            tag = "slip"
            contract_config = {{ expert = "bounded.envs.spire:SpireExpert", slip = 0.2 }}
            """
        )
    )
    return path


def test_plan_on_a_file_uses_the_earlier_games_of_its_cells_and_prices_the_rest(tmp_path):
    path = player_file(tmp_path, games=8)
    before = bounded("plan", str(path), "--compare", "expert", "slip", "--effect", "0.2")
    assert before.returncode == 0, before.stderr
    assert "uses pair correlation 0: assumed (no common seeds in the archive" in before.stdout
    # no games of B: rates centred on 1/2, 0.6 against 0.4
    n = by_hand(0.6, 0.4)
    assert f"cost, total to reach {n} games per cell: {2 * n} games" in before.stdout
    assert not (tmp_path / "p.sqlite").exists()
    assert bounded("sweep", str(path)).returncode == 0
    after = bounded("plan", str(path), "--compare", "expert", "slip", "--effect", "0.2")
    assert after.returncode == 0, after.stderr
    assert "observed in the archive (8 games)" in after.stdout
    uses = [line for line in after.stdout.splitlines() if "pair correlation" in line]
    assert len(uses) == 1 and (
        "observed within blocks on the archive's 8 pairs" in uses[0] or "assumed" in uses[0]
    )
    assert "8 in the archive" in after.stdout
    assert "the file plans 8 common seeds: the smallest difference 8 pairs detect" in after.stdout
    dry = bounded("sweep", str(path), "--dry-run", "--compare", "expert", "slip", "--effect", "0.2")
    assert dry.returncode == 0, dry.stderr
    assert "players: 16 planned, 0 to play" in dry.stdout
    assert "games per cell:" in dry.stdout and "cost, total to reach" in dry.stdout


def test_plan_mistakes_are_one_line_and_exit_2(tmp_path, agenticsts):
    path = player_file(tmp_path, games=2)
    for args, message in (
        (
            ("plan", str(path), "--compare", "expert", "nobody", "--effect", "0.2"),
            "no cell or treatment 'nobody'",
        ),
        (("plan", str(path), "--compare", "expert", "slip"), "give --effect"),
        (
            ("plan", str(path), "--compare", "expert", "slip", "--effect", "0.2", "--power", "1.5"),
            "--power",
        ),
        (("plan", str(agenticsts), "--compare", BASELINE, "nobody"), "no completed games of cell"),
        (("plan", str(tmp_path / "missing.sqlite"), "--compare", "a", "b"), "no archive at"),
    ):
        shown = bounded(*args)
        assert shown.returncode == 2, (args, shown.stdout, shown.stderr)
        assert shown.stderr.count("\n") == 1 and message in shown.stderr, shown.stderr
    assert not (tmp_path / "p.sqlite").exists()


def test_a_command_builds_the_files_plan_once(tmp_path, monkeypatch, capsys):
    """`bounded plan` and `bounded sweep --dry-run --compare` expand the file once and hand
    the plan to the survey, the comparison and its cost."""
    from bounded.cli import main
    from bounded.sweeps.stages import Stages

    built = []
    expand = Stages.stages

    def counted(self, archive_path=None):
        built.append(archive_path)
        return expand(self, archive_path)

    monkeypatch.setattr(Stages, "stages", counted)
    path = player_file(tmp_path, games=2)
    main(["plan", str(path), "--compare", "expert", "slip", "--effect", "0.2"])
    assert built == [tmp_path / "p.sqlite"]
    built.clear()
    capsys.readouterr()
    main(["sweep", str(path), "--dry-run", "--compare", "expert", "slip", "--effect", "0.2"])
    assert built == [tmp_path / "p.sqlite"]
    assert "players: 4 planned, 4 to play" in capsys.readouterr().out


def test_plan_prices_in_the_files_currency_and_names_its_prices(tmp_path):
    from bounded.testing.endpoint import Endpoint

    def write(url: str, priced: bool) -> Path:
        prices = '[prices]\n"openai:fake" = { input = 1.0, cached_input = 0.1, output = 2.0 }\n'
        head = f"""
            currency = "EUR"

            [experiment]
            name = "priced"
            archive = "{tmp_path / "priced.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "openai:fake"
            base_url = "{url}"
            max_decisions = 2
            games = 4

            [[cells]]
            tag = "state"
            contract = "state"

            [[cells]]
            tag = "transcript"
            contract = "transcript"
            """
        path = tmp_path / "priced.toml"
        path.write_text(textwrap.dedent(head) + ("\n" + prices if priced else ""))
        return path

    with Endpoint() as endpoint:
        path = write(endpoint.url, priced=True)
        shown = bounded("plan", str(path), "--compare", "state", "transcript", "--effect", "0.3")
        assert shown.returncode == 0, shown.stderr
        costs = [line for line in shown.stdout.splitlines() if line.startswith("cost")]
        assert all(" EUR" in line and " USD" not in line for line in costs[:-1]), costs
        assert costs[-1] == "cost in EUR at the experiment file's [prices]"
        dry = bounded("sweep", str(path), "--dry-run")
        assert dry.returncode == 0, dry.stdout + dry.stderr
        assert "cost in EUR at the experiment file's [prices]" in dry.stdout
        path = write(endpoint.url, priced=False)  # no prices: unpriced, and said so
        shown = bounded("plan", str(path), "--compare", "state", "transcript", "--effect", "0.3")
    assert shown.returncode == 0, shown.stderr
    assert "cost unpriced (openai:fake)" in shown.stdout
    assert "cost: no prices given (scripted players cost 0;" in shown.stdout
