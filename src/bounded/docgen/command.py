"""`python -m bounded.docgen --check` (or `scripts/docs.py --check`): exit 1 naming every
stale region, 2 on a missing file or renderer; `--write` rewrites the stale regions in
place. Run from the repository's root, or name it with `--root`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bounded.docgen.regions import stale, write


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bounded.docgen",
        description="Regenerate (--write) or check (--check) every table of measured numbers "
        "in README.md and docs/*.md from the committed data files the tables name.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if any region is stale")
    mode.add_argument("--write", action="store_true", help="rewrite stale regions")
    parser.add_argument(
        "--root", type=Path, default=None, help="the repository (default: the current folder)"
    )
    return parser


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """Check or write the docs under `root` (`--root`, else the current folder)."""
    args = parser().parse_args(argv)
    root = args.root or root or Path.cwd()
    if not (root / "docs").is_dir():
        print(f"error: {root} has no docs/ folder; run from the repository's root or pass --root",
              file=sys.stderr)  # fmt: skip
        return 2
    differing, problems = stale(root)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if args.write:
        write(differing)
        for region, _ in differing:
            print(f"wrote {region.doc.relative_to(root)}: {region.name}")
        return 2 if problems else 0
    for region, _ in differing:
        print(
            f"stale: {region.doc.relative_to(root)}: {region.name} "
            f"(from {', '.join(region.files)}); run python scripts/docs.py --write",
            file=sys.stderr,
        )
    return 2 if problems else 1 if differing else 0
