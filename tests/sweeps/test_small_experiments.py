"""The reduced experiment files for the embedded model, `experiments/balrog_small.toml`
and `experiments/memory_designs_small.toml`: their size is what their headers say, and
played with the scripted schema-filling model every game completes and the tables they
are for come out."""

from collections import Counter
from pathlib import Path

from bounded.analysis.balrog import balrog_summary
from bounded.archive import Archive
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import run_sweep

EXPERIMENTS = Path(__file__).parents[2] / "experiments"
BALROG_SMALL = EXPERIMENTS / "balrog_small.toml"
MEMORY_SMALL = EXPERIMENTS / "memory_designs_small.toml"
AGENTS = {"typed", "state", "balrog-naive"}
ENVS = {"crafter", "textworld", "minihack", "babyai"}


def scripted_copy(path: Path, tmp_path: Path, *replacements: tuple[str, str]) -> Path:
    """The file with the scripted model and an archive under tmp_path."""
    text = path.read_text().replace('model = "local"', 'model = "scripted:minimal"')
    text = text.replace('archive = "runs/', f'archive = "{tmp_path}/')
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    copy = tmp_path / path.name
    copy.write_text(text)
    return copy


def test_balrog_small_is_three_agents_on_four_environments_one_episode_of_30_steps():
    games = load_experiment(BALROG_SMALL).plan()
    assert len(games) == 12 and {g.model for g in games} == {"local"}
    assert Counter((g.tag, g.env) for g in games) == {(a, e): 1 for a in AGENTS for e in ENVS}
    assert {g.env_options["max_steps"] for g in games} == {30}


def test_balrog_small_played_prints_balrogs_table_for_every_agent_and_environment(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("BOUNDED_TEXTWORLD_GAMES", str(tmp_path / "games"))
    cell = 'task = "coin_collector", max_steps = 30'
    small_game = (f"{cell} }}", f"{cell}, settings = {{ level = 3 }} }}")  # a quick game
    experiment = load_experiment(scripted_copy(BALROG_SMALL, tmp_path, small_game))
    summary = run_sweep(experiment)
    assert summary.failed == [] and summary.played == 12
    with Archive(experiment.archive) as archive:
        table = balrog_summary(archive.runs())
    assert {agent.tag for agent in table} == AGENTS
    assert all(set(agent["environments"]) == ENVS for agent in table.values())


def test_memory_designs_small_is_every_design_once_within_225_decisions():
    experiment = load_experiment(MEMORY_SMALL)
    plan = experiment.stages()
    cells, learning = plan.cells, [game for phase in plan.phases for game in phase.games]
    assert len(cells) == 16 and len(learning) == 2
    assert {c.contract for c in cells} == {
        "typed", "state", "transcript", "summary", "episodic", "rag", "paged", "reflexion-frozen"
    }  # fmt: skip
    games = [*cells, *learning]
    assert {g.max_decisions for g in games} == {15}
    assert sum(min(g.env_options.get("horizon", 15), 15) for g in games) == 225


def test_memory_designs_small_played_completes_every_game(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    experiment = load_experiment(scripted_copy(MEMORY_SMALL, tmp_path))
    summary = run_sweep(experiment)
    assert summary.failed == [] and summary.played == 18
    with Archive(experiment.archive) as archive:
        runs = archive.runs()
    assert {run.status for run in runs} == {"completed"}
    assert sum(run.decisions for run in runs) == 225
