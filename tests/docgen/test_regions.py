"""Regions found in the docs, rendered from their data files (JSON or TOML), reported when
stale or broken, and rewritten without touching the prose around them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bounded.docgen import registry
from bounded.docgen.command import main
from bounded.docgen.regions import regions, stale, write

DOC = """# A page

Prose before.

- an item:

  <!-- generated: toy from bench/results/toy.json -->
  old
  <!-- end generated -->

<!-- generated: toy from data/toy.toml -->
| stale |
<!-- end generated -->

Prose after.
"""


def toy(data: dict[str, object]) -> str:
    return f"| {data['name']} |\n\nsecond line\n"


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setitem(registry.RENDERERS, "toy", toy)
    (tmp_path / "README.md").write_text("# readme\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(DOC)
    (tmp_path / "bench" / "results").mkdir(parents=True)
    (tmp_path / "bench" / "results" / "toy.json").write_text(json.dumps({"name": "json"}))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "toy.toml").write_text('name = "toml"\n')
    return tmp_path


def test_a_region_inside_a_list_item_keeps_its_indent(root):
    found = list(regions(root / "docs" / "page.md"))
    assert [(r.name, r.files, r.indent) for r in found] == [
        ("toy", ("bench/results/toy.json",), "  "),
        ("toy", ("data/toy.toml",), ""),
    ]


def test_write_renders_json_and_toml_and_leaves_the_prose(root):
    differing, problems = stale(root)
    assert problems == []
    assert len(differing) == 2
    write(differing)
    assert (root / "docs" / "page.md").read_text() == DOC.replace(
        "  old\n", "  | json |\n\n  second line\n"
    ).replace("| stale |\n", "| toml |\n\nsecond line\n")
    assert stale(root) == ([], [])


def test_an_unknown_renderer_a_missing_file_and_bad_json_are_named(root):
    page = root / "docs" / "page.md"
    page.write_text(
        DOC.replace("generated: toy from data", "generated: nope from data")
        + "\nSee bench/results/gone.json.\n"
    )
    (root / "bench" / "results" / "toy.json").write_text("{not json")
    _, problems = stale(root)
    assert problems[0] == "docs/page.md: cites bench/results/gone.json, which does not exist"
    assert problems[1].startswith("docs/page.md: toy: bench/results/toy.json is not JSON: ")
    assert problems[2] == "docs/page.md: nope: no renderer named 'nope' in bounded.docgen.registry"
    assert len(problems) == 3


def test_a_renderer_that_cannot_read_its_file_is_named(root):
    (root / "data" / "toy.toml").write_text('other = "toml"\n')
    _, problems = stale(root)
    assert problems == ["docs/page.md: toy: toy cannot read data/toy.toml: KeyError('name')"]


def test_the_command_checks_writes_and_refuses_a_folder_without_docs(root, tmp_path, capsys):
    assert main(["--check", "--root", str(root)]) == 1
    assert "stale: docs/page.md: toy (from data/toy.toml)" in capsys.readouterr().err
    assert main(["--write"], root=root) == 0
    assert main(["--check"], root=root) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["--check", "--root", str(empty)]) == 2
    assert capsys.readouterr().err == (
        f"error: {empty} has no docs/ folder; run from the repository's root or pass --root\n"
    )
