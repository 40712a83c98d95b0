"""The docs' generated regions: found in README.md and docs/*.md, rendered from their data
files, compared with what they hold and rewritten in place.

A generated region reads

    <!-- generated: NAME from bench/results/a.json, bench/results/b.json -->
    ...the table, written by the renderer registered as NAME (`bounded.docgen.registry`)...
    <!-- end generated -->

Everything outside the regions (prose, other engineers' sections) is left as it is. A doc
that cites a data file (`bench/results/...json`, anywhere in it) that does not exist fails
the check, as does a region whose renderer or data file is missing."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bounded.docgen.registry import RENDERERS

REGION = re.compile(
    r"^(?P<indent>[ ]*)<!-- generated: (?P<name>[\w-]+) from (?P<files>[^>]+?) -->\n"
    r"(?P<body>.*?)"
    r"^[ ]*<!-- end generated -->",
    re.S | re.M,
)
CITATION = re.compile(r"bench/results/[\w.-]+\.(?:json|npz)")


class DocError(Exception):
    """A region that cannot be generated: the message names the file or the renderer."""


@dataclass(frozen=True)
class Region:
    doc: Path
    name: str
    files: tuple[str, ...]
    indent: str
    """The opening marker's indentation (a region inside a list item), given to every line."""
    body: str
    start: int
    end: int


def documents(root: Path) -> list[Path]:
    """README.md and every docs/*.md, in a fixed order."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def regions(doc: Path) -> Iterator[Region]:
    text = doc.read_text()
    for match in REGION.finditer(text):
        files = tuple(f.strip() for f in match["files"].split(","))
        yield Region(
            doc, match["name"], files, match["indent"], match["body"],
            match.start("body"), match.end("body"),
        )  # fmt: skip


def load(root: Path, name: str) -> Any:
    """A data file parsed: TOML when its name ends in .toml, JSON otherwise."""
    path = root / name
    if not path.is_file():
        raise DocError(f"missing data file {name}")
    try:
        if path.suffix == ".toml":
            return tomllib.loads(path.read_text())
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise DocError(f"{name} is not JSON: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise DocError(f"{name} is not TOML: {error}") from error


def render(region: Region, root: Path) -> str:
    """What the region should hold, from its data files."""
    renderer = RENDERERS.get(region.name)
    if renderer is None:
        raise DocError(f"no renderer named {region.name!r} in bounded.docgen.registry")
    data = [load(root, name) for name in region.files]
    try:
        body = renderer(*data)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise DocError(f"{region.name} cannot read {', '.join(region.files)}: {error!r}") from error
    lines = body.rstrip("\n").split("\n")
    return "".join(f"{region.indent}{line}".rstrip() + "\n" for line in lines)


def missing_citations(doc: Path, root: Path) -> list[str]:
    """Data files the doc names that are not in the repository."""
    cited = sorted(set(CITATION.findall(doc.read_text())))
    return [name for name in cited if not (root / name).is_file()]


def stale(root: Path) -> tuple[list[tuple[Region, str]], list[str]]:
    """(regions whose text differs from their data, with the text they should hold;
    problems: missing files, unknown renderers)."""
    differing: list[tuple[Region, str]] = []
    problems: list[str] = []
    for doc in documents(root):
        where = doc.relative_to(root)
        problems += [
            f"{where}: cites {name}, which does not exist" for name in missing_citations(doc, root)
        ]
        for region in regions(doc):
            try:
                wanted = render(region, root)
            except DocError as error:
                problems.append(f"{where}: {region.name}: {error}")
                continue
            if wanted != region.body:
                differing.append((region, wanted))
    return differing, problems


def write(differing: list[tuple[Region, str]]) -> None:
    """Rewrite each region in its doc, last first so earlier offsets hold."""
    by_doc: dict[Path, list[tuple[Region, str]]] = {}
    for region, wanted in differing:
        by_doc.setdefault(region.doc, []).append((region, wanted))
    for doc, changes in by_doc.items():
        text = doc.read_text()
        for region, wanted in sorted(changes, key=lambda change: -change[0].start):
            text = text[: region.start] + wanted + text[region.end :]
        doc.write_text(text)
