"""`bounded runs`: each run's cell and error, and the way to continue a stale one (a sweep's
games by rerunning the sweep, a lone run by `bounded resume`)."""

import shlex

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.core import RunRecord


def record(run_id: str, **fields) -> RunRecord:
    return RunRecord(
        run_id=run_id, env_id="bounded/Warehouse-v0", contract="state", model="m", seed=1,
        **fields,
    )  # fmt: skip


def test_runs_show_cell_and_error_and_send_a_sweeps_games_to_the_sweep(tmp_path, capsys):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        archive.save_run(
            record("a" * 32, experiment="exp", cell="state.warehouse", status="running")
        )
        archive.save_run(record("b" * 32, status="failed", error="ModelUnavailableError: down"))
        archive.save_run(record("c" * 32, status="running"))
    main(["runs", str(path)])
    out = " ".join(capsys.readouterr().out.split())
    assert "state.warehouse" in out and "ModelUnavailableError: down" in out
    assert (
        f"1 stale games of experiment(s) exp: rerun the sweep (bounded sweep FILE.toml {path})"
        in out
    )
    assert f"1 stale runs (0 resumable): bounded resume RUN_ID {path} continues one" in out
    assert f"bounded runs {path} --close-stale marks the others failed" in out


def test_a_tag_no_run_has_is_an_error_naming_the_closest(tmp_path, capsys):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        archive.save_run(record("a" * 32, tag="typed", status="completed"))
    with pytest.raises(SystemExit) as stopped:
        main(["runs", str(path), "--tag", "type"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"bounded: error: no runs of tag 'type' in {path} (did you mean 'typed'?) "
        "(tags there: typed)"
    )
    with pytest.raises(SystemExit) as stopped:
        main(["attribute", str(path), "--tag", "type", "--layer", "L3"])
    assert stopped.value.code == 2
    assert "no runs of tag 'type'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:  # the audit streams its runs, checked first
        main(["audit", str(path), "--contract", "stat"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"bounded: error: no runs of contract 'stat' in {path} (did you mean 'state'?) "
        "(contracts there: state)"
    )


def test_runs_show_cell_names_as_written_and_the_code_that_played_each(
    tmp_path, capsys, monkeypatch
):
    from rich.console import Console

    from bounded.cli import _output, runs

    wide = Console(width=400)
    monkeypatch.setattr(_output, "console", wide)
    monkeypatch.setattr(runs, "console", wide)
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        for run_id, level in (("a" * 32, "goto"), ("b" * 32, "pickup")):
            archive.save_run(
                record(run_id, experiment="exp", cell=f"balrog-naive[level={level}]",
                       tag="[bold]t[/bold]", status="completed", code_revision="v1-2-gabc-dirty")
            )  # fmt: skip
    main(["runs", str(path)])
    out = capsys.readouterr().out
    assert "balrog-naive[level=goto]" in out and "balrog-naive[level=pickup]" in out
    assert "[bold]t[/bold]" in out and out.count("v1-2-gabc-dirty") == 2


def test_an_experiment_named_with_brackets_is_printed_as_written(tmp_path, capsys):
    """rich reads `[1]` as markup: the sweep's closing line and `runs`' stale line print
    the name as written (as the cells' names are), and a path longer than the terminal
    unbroken."""
    folder = tmp_path / ("[x]" + "-long" * 20)
    folder.mkdir()
    path = folder / "a.sqlite"
    experiment = tmp_path / "e.toml"
    experiment.write_text(
        f'[experiment]\nname = "exp[1]"\narchive = "{path}"\n\n[defaults]\n'
        'env = "warehouse"\nenv_options = { horizon = 2 }\nmodel = "scripted:minimal"\n'
        'games = 1\n\n[[cells]]\ntag = "state"\ncontract = "state"\n'
    )
    main(["sweep", str(experiment)])
    out = " ".join(capsys.readouterr().out.split())
    assert "exp[1]: 1/1 games completed" in out and f"archive {path}" in out
    with Archive(path) as archive:
        archive.save_run(record("d" * 32, experiment="exp[1]", status="running"))
    main(["runs", str(path)])
    out = " ".join(capsys.readouterr().out.split())
    rerun = f"bounded sweep FILE.toml {shlex.quote(str(path))}"
    assert f"stale games of experiment(s) exp[1]: rerun the sweep ({rerun})" in out


def test_a_limited_list_says_it_shows_the_newest_n_of_all_the_runs(tmp_path, capsys):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        for index in range(5):
            archive.save_run(record(f"{index:032d}", status="completed"))
    main(["runs", str(path), "--limit", "3"])
    out = " ".join(capsys.readouterr().out.split())
    assert "the newest 3 of 5 runs" in out
    main(["runs", str(path)])
    out = " ".join(capsys.readouterr().out.split())
    assert "5 runs" in out and "newest" not in out
