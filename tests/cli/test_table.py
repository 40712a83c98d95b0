"""The rehearsal of a comparison before paying: 24 games (4 agents x Crafter and NetHack x 3
seeds) against the fake endpoint playing the first legal action, then the paper's table of
progression by environment and agent in LaTeX, and `analyze` keeping the environments apart.

The fake endpoint proves the plumbing only: its replies are no memory's, so its numbers
say nothing about the contracts."""

import textwrap

import pytest

from bounded.cli import main
from bounded.testing.endpoint import Endpoint

AGENTS = ("typed", "state", "transcript", "balrog-naive")
ENVS = ("crafter", "nethack")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in argv])
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def rehearsal_file(tmp_path, url):
    cells = "\n".join(
        f'[[cells]]\nname = "{agent}.{env}"\ntag = "{agent}"\ncontract = "{agent}"\n'
        f'env = "{env}"\nenv_options = {{ max_steps = 3 }}\n'
        for agent in AGENTS
        for env in ENVS
    )
    path = tmp_path / "rehearsal.toml"
    head = f"""
        [experiment]
        name = "rehearsal"
        archive = "{tmp_path / "rehearsal.sqlite"}"
        concurrency = 4

        [defaults]
        model = "openai:fake"
        base_url = "{url}"
        games = 3
        """
    path.write_text(textwrap.dedent(head) + "\n" + cells)
    return path


def test_the_rehearsal_plays_24_games_and_gives_the_papers_table(tmp_path, capsys):
    with Endpoint(plays="first", counts_usage=True) as endpoint:
        path = rehearsal_file(tmp_path, endpoint.url)
        code, out, err = call(capsys, "sweep", path)
    assert code == 0, out + err
    archive = tmp_path / "rehearsal.sqlite"
    code, latex, err = call(
        capsys, "table", archive, "--rows", "env", "--cols", "tag", "--metric", "progression",
        "--format", "latex",
    )  # fmt: skip
    assert code == 0, err
    assert r"\begin{tabular}{lrrrr}" in latex and "3 games per entry" in latex
    assert r"env & balrog-naive & state & transcript & typed \\" in latex
    body = latex.split(r"\midrule")[1]
    for env in ("crafter", "nle"):
        line = next(line for line in body.splitlines() if line.startswith(f"{env} & "))
        assert line.count("[") == 4  # every agent's mean with its interval
    code, out, _ = call(capsys, "analyze", archive)
    assert code == 0
    for agent in AGENTS:
        assert f"{agent}.crafter" in out and f"{agent}.nethack" in out
    code, out, _ = call(capsys, "analyze", archive, "--diff", "typed.crafter,transcript.crafter")
    assert code == 0 and "typed.crafter" in out


def test_analyze_prints_one_table_per_environment_led_by_its_progression(tmp_path, capsys):
    with Endpoint(plays="first") as endpoint:
        path = rehearsal_file(tmp_path, endpoint.url)
        path.write_text(path.read_text().replace("games = 3", "games = 1"))
        code, out, err = call(capsys, "sweep", path)
    assert code == 0, out + err
    code, out, _ = call(capsys, "analyze", tmp_path / "rehearsal.sqlite")
    assert code == 0
    out = out.split("parity")[0]  # the tables, not the parity report under them
    crafter, nethack = out.index("bounded/Crafter-v0"), out.index("bounded/NetHack-v0")
    assert crafter < nethack
    assert all(crafter < at < nethack for at in find_all(out, ".crafter "))
    assert all(at > nethack for at in find_all(out, ".nethack "))
    assert out[crafter:nethack].count("progression") >= 1  # its measure leads
    assert out[nethack:].count("progression") >= 1


def find_all(text: str, part: str) -> list[int]:
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def matrix_file(tmp_path, url):
    """Three contracts x two BabyAI levels x 4 seeds against the fake endpoint."""
    cells = "\n".join(
        f'[[cells]]\ntag = "{agent}"\ncontract = "{agent}"\n'
        for agent in ("balrog-naive", "state", "typed")
    )
    head = f"""
        [experiment]
        name = "levels"
        archive = "{tmp_path / "levels.sqlite"}"
        concurrency = 4

        [defaults]
        model = "openai:fake"
        base_url = "{url}"
        env = "babyai"
        env_options = {{ max_steps = 4 }}
        games = 4

        [matrix]
        level = ["goto", "pickup"]
        """
    path = tmp_path / "levels.toml"
    path.write_text(textwrap.dedent(head) + "\n" + cells)
    return path


def test_a_multi_task_sweep_gives_the_paper_table_by_level(tmp_path, capsys):
    with Endpoint(plays="first", counts_usage=True) as endpoint:
        code, out, err = call(capsys, "sweep", matrix_file(tmp_path, endpoint.url))
    assert code == 0, out + err
    archive = tmp_path / "levels.sqlite"
    code, markdown, err = call(
        capsys, "table", archive, "--baseline", "balrog-naive", "--format", "markdown"
    )
    assert code == 0, err
    assert "| block | balrog-naive | state | typed |" in markdown
    for row in ("| babyai level=goto |", "| babyai level=pickup |", "| babyai (average) |"):
        assert markdown.count(row) >= 2  # the entries and the paired differences
    assert "state - balrog-naive (paired)" in markdown and "Holm" in markdown
    assert "decisions that fell back" in markdown  # the rates of what the agents did
    code, latex, _ = call(capsys, "table", archive, "--rows", "level", "--format", "latex")
    assert code == 0 and r"babyai level=goto & " in latex
    code, text, _ = call(capsys, "table", archive, "--baseline", "state", "--format", "csv")
    lines = text.splitlines()
    assert code == 0 and lines[0].startswith("kind,metric,block,treatment")
    assert sum(line.startswith("entry,progression,babyai level=") for line in lines) == 6
    code, out, _ = call(capsys, "analyze", archive)
    assert (
        code == 0
        and "unpriced" in out
        and "cost: unpriced, no prices given" in " ".join(out.split())
    )
    # paired per level and pooled; the level is the block, never a parity line
    code, out, _ = call(capsys, "analyze", archive, "--compare", "balrog-naive,state")
    flat = " ".join(out.split())
    assert code == 0 and "babyai level=pickup" in flat and "all blocks" in flat
    assert "parity:" in flat and "level differs" not in flat and "option level" not in flat
    code, out, err = call(capsys, "report", archive, "--baseline", "balrog-naive",
                          "--compare", "balrog-naive,state", "-o", tmp_path / "r.html")  # fmt: skip
    page = (tmp_path / "r.html").read_text()
    assert code == 0, err
    assert "state - balrog-naive (paired)" in page and "babyai level=goto" in page
    assert "level differs" not in page and "option level" not in page


def test_analyze_prices_a_sweep_at_its_experiment_files_prices(tmp_path, capsys):
    with Endpoint(plays="first", counts_usage=True) as endpoint:
        path = matrix_file(tmp_path, endpoint.url)
        text = path.read_text().replace("games = 4", "games = 1")
        priced = (
            'currency = "EUR"\n'
            + text
            + ("\n[prices.openai]\ninput = 1.0\ncached_input = 0.1\noutput = 2.0\n")
        )
        path.write_text(priced)
        code, out, err = call(capsys, "sweep", path)
    assert code == 0, out + err
    assert "spent " in out and " EUR at the experiment file's [prices]" in out
    code, out, _ = call(capsys, "analyze", tmp_path / "levels.sqlite")
    text = " ".join(out.split())
    assert code == 0 and "unpriced" not in text
    source = "the [prices] of experiment levels (stored by its sweep)"
    assert f"cost in EUR at the prices of {source}" in text
    code, out, _ = call(capsys, "analyze", tmp_path / "levels.sqlite", "--prices", "list-2025")
    assert code == 0 and "cost in USD at the prices of list-2025" in " ".join(out.split())
