"""`bounded demo`'s first job with a scripted model: the typed and the transcript games on
the same spire seed, their prompt tokens per decision side by side (the transcript's
growing with every decision), the split by layer, and where the archive and the report
are; `--full` is the whole spire game."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.cli import main


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def table_rows(out: str, title: str) -> dict[str, list[str]]:
    """The rows of the rich table under `title`: first cell -> the others."""
    part = out.split(title, 1)[1].split("└", 1)[0]
    rows = {}
    for line in part.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


def test_the_demo_sets_both_contracts_prompts_side_by_side(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    archive = Path("runs/bounded.sqlite")
    code, out, err = call(
        capsys, "demo", "--model", "scripted:minimal", "--decisions", "6", "--seed", "2"
    )
    assert code == 0, err
    with Archive(archive, read_only=True) as store:
        runs = {run.contract: run for run in store.runs()}
        prompts = {
            contract: [d.prompt_tokens for d in store.decisions(run.run_id, with_segments=False)]
            for contract, run in runs.items()
        }
    assert set(runs) == {"typed", "transcript"}
    assert {run.seed for run in runs.values()} == {2}
    assert all(run.decisions == 6 for run in runs.values())
    rows = table_rows(out, "prompt tokens per decision")
    for index in range(6):
        shown = [int(cell.replace(",", "")) for cell in rows[str(index + 1)]]
        assert shown == [prompts["typed"][index], prompts["transcript"][index]]
    transcript = prompts["transcript"]
    assert all(later > earlier for earlier, later in itertools.pairwise(transcript))
    assert rows["growth"][1].startswith(f"+{transcript[-1] - transcript[0]:,}")
    layers = table_rows(out, "prompt tokens by layer")
    assert {"L1", "L2", "history", "observation"} <= set(layers)
    assert layers["history"][0] == "-" and layers["L1"][1] == "-"
    flat = re.sub(r"\s+", " ", out)
    report = archive.parent / "demo-report.html"
    assert report.exists() and f"report: {report}" in flat
    assert f"archive: {archive}" in flat and "bounded demo --full" in flat


def test_full_plays_the_whole_spire_game(capsys, tmp_path):
    archive = tmp_path / "full.sqlite"
    code, out, err = call(
        capsys, "demo", "--full", "--archive", str(archive), "--model", "scripted:minimal"
    )
    assert code == 0, err
    with Archive(archive, read_only=True) as store:
        (run,) = store.runs()
    assert run.contract == "typed" and run.status == "completed"
    assert run.outcome.get("victory") or run.outcome["hp"] <= 0  # played to its end
    assert "spire under typed" in out


def test_an_unknown_demo_is_one_line(capsys):
    code, _, err = call(capsys, "demo", "chess")
    assert code == 2 and "unknown demo 'chess' (one of compare, spire, warehouse)" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--acts", "3"], "--acts belongs to the spire demo, not the compare one "
         "(use: bounded demo --full --acts ...)"),
        (["warehouse", "--contract", "state"], "--contract belongs to the spire demo, "
         "not the warehouse one"),
        (["--full", "--decisions", "4"], "--decisions belongs to the compare demo, not the "
         "spire one (use: bounded demo compare --decisions ...)"),
        (["--horizons", "5"], "--horizons belongs to the warehouse demo"),
    ],
)  # fmt: skip
def test_another_demos_option_is_refused_not_ignored(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "demo", *argv, "--model", "scripted:minimal")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []  # nothing played, no archive made


@pytest.mark.model
def test_the_embedded_model_plays_the_demo(capsys, tmp_path, monkeypatch):
    """The README's first command on the embedded model, cut to 2 decisions a game."""
    monkeypatch.chdir(tmp_path)
    code, out, err = call(capsys, "demo", "--decisions", "2")
    assert code == 0, err
    with Archive(Path("runs/bounded.sqlite"), read_only=True) as store:
        runs = store.runs()
    assert {(run.contract, run.model, run.decisions) for run in runs} == {
        ("typed", "local:smollm2", 2), ("transcript", "local:smollm2", 2),
    }  # fmt: skip
    assert "growth" in out and "report: runs/demo-report.html" in out
