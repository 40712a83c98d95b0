"""The docs' numbers rest on committed data: every generated region equals what its data
files produce (`bounded.docgen`, run as scripts/docs.py), a doc citing a missing file
fails, and a list of measured figures in docs/results.md is each in a generated region or
beside its file and field."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bounded.docgen import regions as docs
from bounded.docgen.command import main
from bounded.docgen.registry import RENDERERS

ROOT = Path(__file__).parents[1]

RESULTS_MD = ROOT / "docs" / "results.md"


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    """The docs and their data files in a folder of their own, to break."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copytree(ROOT / "bench" / "results", tmp_path / "bench" / "results")
    return tmp_path


def test_every_generated_region_equals_what_its_data_produce():
    differing, problems = docs.stale(ROOT)
    assert problems == []
    assert [f"{r.doc.name}: {r.name}" for r, _ in differing] == [], (
        "run python scripts/docs.py --write"
    )


def test_the_docs_have_generated_regions():
    names = {region.name for doc in docs.documents(ROOT) for region in docs.regions(doc)}
    assert len(names) >= 20
    assert set(names) <= set(RENDERERS)


def test_a_number_changed_in_a_data_file_fails_the_check(copy):
    data_file = copy / "bench" / "results" / "sweep_estimates.json"
    data = json.loads(data_file.read_text())
    data["sweeps"][0]["cells"] += 1
    data_file.write_text(json.dumps(data))
    differing, problems = docs.stale(copy)
    assert problems == []
    assert [region.name for region, _ in differing] == ["sweep-estimates"]


def test_a_doc_citing_a_missing_file_fails(copy):
    doc = copy / "docs" / "results.md"
    doc.write_text(doc.read_text() + "\nSee `bench/results/never_measured.json`.\n")
    _, problems = docs.stale(copy)
    assert problems == [
        "docs/results.md: cites bench/results/never_measured.json, which does not exist"
    ]


def test_a_region_whose_data_file_is_gone_fails(copy):
    (copy / "bench" / "results" / "rag_retrieval.json").unlink()
    _, problems = docs.stale(copy)
    assert any(
        "rag-retrieval: missing data file bench/results/rag_retrieval.json" in p for p in problems
    )


def test_write_restores_a_region_and_leaves_the_prose(copy):
    doc = copy / "docs" / "results.md"
    original = doc.read_text()
    edited = original.replace("| `rag` | 1,013 | 1,210,159 |", "| `rag` | 1,013 | 9,999,999 |")
    assert edited != original
    doc.write_text(edited + "\nProse another engineer added.\n")
    differing, _ = docs.stale(copy)
    assert [region.name for region, _ in differing] == ["memory-designs-audit"]
    docs.write(differing)
    assert doc.read_text() == original + "\nProse another engineer added.\n"
    assert docs.stale(copy) == ([], [])


def test_the_command_exits_1_when_stale_and_names_the_region(copy, capsys):
    doc = copy / "docs" / "results.md"
    doc.write_text(doc.read_text().replace("| 3 | 1.00 | 1.00 |", "| 3 | 0.50 | 1.00 |"))
    assert main(["--check"], root=copy) == 1
    assert "stale: docs/results.md: craft-calibration" in capsys.readouterr().err
    assert main(["--write"], root=copy) == 0
    assert main(["--check"], root=copy) == 0


def test_the_script_checks_this_checkout_from_any_folder(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs.py"), "--check"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")


# (figure as docs/results.md writes it, None if it stands in a generated region, or the
# data file and field it cites beside it, whose value it must equal)
FIGURES: list[tuple[str, tuple[str, str] | None]] = [
    ("-0.07%", None),
    ("16.9%", None),
    ("8.92", None),
    ("64.1", None),
    ("0.510", None),
    ("0.367", None),
    ("48.8", None),
    ("124.5", None),
    ("182,498", None),
    ("92.5% (37/40)", None),
    ("61.2 ± 1.8", None),
    ("7,591,975", None),
    ("80.47 / 124.44", None),
    ("8.2 MB", None),
    ("76.5% (predicted)", None),
    ("200,586", None),
    ("8.78x", None),
    ("35,639,576", None),
    ("+87.3%", None),
    ("29.7-42.9%", None),
    ("3,207", None),
    ("0.58 CPU seconds", ("bench/results/craft_throughput.json", "cpu_s_per_20_game_min")),
    ("260,301", None),
    ("1.39 ms", ("bench/results/episodic_retrieval.json", "rows.10.p50_ms")),
    ("68,305", None),
    ("93,597", None),
    ("**66.2%**", None),
    ("343.36", None),
    ("0.291 s wall", ("bench/results/sweep_throughput.json", "startup.this.median_wall_s")),
    ("0.391 s CPU", ("bench/results/sweep_throughput.json", "startup.this.median_cpu_s")),
    (
        "0.818 s wall",
        ("bench/results/sweep_throughput_before.json", "startup.other.median_wall_s"),
    ),
    ("18/40 (`replay.wins`)", ("bench/results/epicstar_replay.json", "replay.wins")),
    ("0.9 | 1.5 | 0.035", None),
    ("| 8-35 |", None),
    ("| 1 (passed) | 0.00 | 1.00 |", None),
    ("1,139 ms mean", ("bench/results/rag_retrieval.json", "embed_call.mean_ms")),
    ("38/40", ("bench/results/epicstar_replay.json", "expert.wins")),
]


def paragraphs(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"(?:[^\n]+\n?)+", text)]


def field(data: object, path: str) -> float:
    for key in path.split("."):
        data = data[int(key)] if isinstance(data, list) else data[key]  # type: ignore[index]
    return float(data)  # type: ignore[arg-type]


def number(figure: str) -> tuple[float, int]:
    digits = re.search(r"-?[\d,]*\.?\d+", figure.replace("**", ""))
    assert digits, figure
    text = digits.group().replace(",", "")
    return float(text), len(text.split(".")[1]) if "." in text else 0


@pytest.mark.parametrize(("figure", "cited"), FIGURES, ids=[f for f, _ in FIGURES])
def test_a_measured_figure_is_generated_or_cited_beside_its_field(figure, cited):
    text = RESULTS_MD.read_text()
    spans = [(r.start, r.end) for r in docs.regions(RESULTS_MD)]
    found = [m.start() for m in re.finditer(re.escape(figure), text)]
    assert found, f"{figure} is not in docs/results.md"
    for at in found:
        if any(start <= at < end for start, end in spans):
            continue
        assert cited, f"{figure} at offset {at} is neither generated nor cited"
        name, path = cited
        paragraph = next(p for start, end, p in paragraphs(text) if start <= at < end)
        assert name in paragraph and path in paragraph, f"{figure}: no citation of {name}: {path}"
        value, decimals = number(figure)
        measured = field(json.loads((ROOT / name).read_text()), path)
        assert round(measured, decimals) == pytest.approx(value), (figure, measured)


def test_the_spot_check_covers_at_least_30_figures():
    assert len(FIGURES) >= 30
