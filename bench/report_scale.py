"""Benchmark: the readers of an archive of many games: `bounded report` (seconds, peak
RSS, the HTML file's size), `bounded view`'s first page (seconds from the server's start
to its first page's answer, and the page's own), `bounded audit` and the plan of
`bounded attribute --dry-run` (seconds and peak RSS), each run as its own process under
`/usr/bin/time`.

The archive: `--games` warehouse games of `--game-decisions` decisions each, played by
the scripted model under each contract of `--contracts` in turn and written through the
archive's sink exactly as a sweep writes (`bench/archive_scale.py`'s `fill`); `--archive
PATH` reuses one already filled (it is kept; a filled one is deleted). Each reader runs
with this checkout's code, and with `--before SRC`'s (an older bounded's `src`) beside it
on the same archive (a copy each: the code after converts an older format as it opens).

`--grow K` then copies the archive's runs and decisions K - 1 times under new run ids
(K times the games and decisions, format 3's integer keys renumbered; the copies' prompts
are not readable, their rows are) and times on it, with each code, `bounded report`, a
read-only open of the archive, `bounded view`'s page of runs half way down the list, and
its first page: what they cost on an archive of a million decisions without playing them.

    .venv/bin/python bench/report_scale.py [--games 10000] [--game-decisions 10]
        [--archive runs/big.sqlite] [--before /tmp/before/src]
        [--out bench/results/report_scale.json]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from archive_scale import fill, view_first_page

RESULTS = Path(__file__).parent / "results" / "report_scale.json"
SOURCE = Path(__file__).resolve().parents[1] / "src"
READERS: dict[str, list[str]] = {
    "report": ["report", "{archive}", "-o", "{out}/report.html"],
    "audit": ["audit", "{archive}"],
    "attribute plan": ["attribute", "{archive}", "--layer", "state", "--dry-run"],
}
"""`attribute`'s plan reads every decision of every run to draw its sample (`--dry-run`:
it makes no model call)."""


def bounded(src: Path) -> tuple[list[str], dict[str, str]]:
    """The command line that runs `bounded` from `src`, and its environment."""
    argv = [sys.executable, "-c", "from bounded.cli import main; main()"]
    return argv, {**os.environ, "PYTHONPATH": str(src)}


def timed(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Seconds and peak RSS (MB) of one command."""
    import re

    done = subprocess.run(
        ["/usr/bin/time", "-f", "TIMED %e %M", *argv],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    match = re.search(r"TIMED ([\d.]+) (\d+)", done.stderr)
    if done.returncode != 0 or match is None:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    return {"s": float(match[1]), "peak_rss_mb": int(match[2]) / 1024}


def readers(path: Path, src: Path, out: Path) -> dict[str, Any]:
    """Each reader of `path`, run with the code in `src`."""
    argv, env = bounded(src)
    measured: dict[str, Any] = {}
    for name, args in READERS.items():
        measured[name] = timed([*argv, *(a.format(archive=path, out=out) for a in args)], env)
        print(f"  {src}: {name}: {measured[name]}", flush=True)
    report = out / "report.html"
    if report.exists():
        measured["report"]["html_mb"] = report.stat().st_size / 2**20
        report.unlink()
    measured["view first page"] = first_page(path, src)
    print(f"  {src}: view first page: {measured['view first page']}", flush=True)
    return measured


def grown(path: Path, copies: int, folder: Path) -> Path:
    """A copy of the archive at `path` holding its runs and decisions `copies` times."""
    import sqlite3

    target = folder / "grown.sqlite"
    shutil.copyfile(path, target)
    db = sqlite3.connect(target)
    try:
        runs = [r[1] for r in db.execute("PRAGMA table_info(runs)") if r[1] != "id"]
        decisions = [r[1] for r in db.execute("PRAGMA table_info(decisions)") if r[1] != "id"]
        with db:
            for copy in range(1, copies):
                picked = [f"'{copy}~' || run_id" if c == "run_id" else c for c in runs]
                db.execute(
                    f"INSERT INTO runs ({', '.join(runs)}) "
                    f"SELECT {', '.join(picked)} FROM runs WHERE run_id NOT LIKE '%~%'"
                )
                new_run = (
                    f"(SELECT n.id FROM runs n WHERE n.run_id = '{copy}~' || "
                    "(SELECT o.run_id FROM runs o WHERE o.id = decisions.run))"
                )
                picked = [new_run if c == "run" else c for c in decisions]
                db.execute(
                    f"INSERT INTO decisions ({', '.join(decisions)}) "
                    f"SELECT {', '.join(picked)} FROM decisions WHERE run IN "
                    "(SELECT id FROM runs WHERE run_id NOT LIKE '%~%')"
                )
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return target


def first_page(path: Path, src: Path) -> dict[str, Any]:
    """`bounded view`'s first page (`view_first_page`) with the code in `src`."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(src)  # `view_first_page` starts `bounded view` as we are
    try:
        return view_first_page(path)
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old


OPEN_AND_PAGE = """
import sys, time
from bounded.archive import Archive
from bounded.report.build import ReportOptions, served_runs
path, skip, after = sys.argv[1], int(sys.argv[2]), sys.argv[3]
started = time.perf_counter()
archive = Archive(path, read_only=True)
opened = time.perf_counter()
if after and "after" in served_runs.__code__.co_varnames:
    page = served_runs(archive, ReportOptions(), after=after)
else:
    page = served_runs(archive, ReportOptions(), skip)
paged = time.perf_counter()
print(f"OPENPAGE {opened - started} {paged - opened} {len(page['runs'])}")
"""
"""A read-only open of the archive, and `bounded view`'s page of runs after the first
`skip` (by keyset after run `after` where the code pages so, else by offset): seconds."""


def open_and_page(path: Path, src: Path, skip: int, after: str) -> dict[str, Any]:
    argv, env = bounded(src)
    done = subprocess.run(
        [argv[0], "-c", OPEN_AND_PAGE, str(path), str(skip), after],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    line = [x for x in done.stdout.splitlines() if x.startswith("OPENPAGE")]
    if done.returncode != 0 or not line:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    _, opened, paged, listed = line[0].split()
    return {"open_s": float(opened), "runs_page_s": float(paged), "runs_listed": int(listed)}


def grown_readers(big: Path, sources: dict[str, Path]) -> dict[str, Any]:
    """On the grown archive: `bounded report` (seconds, peak RSS), the read-only open and the
    page of runs half way down (`open_and_page`), and the first page of `bounded view`,
    with each code. The code after first opens it to write once (`first open to write`: the
    copied runs were written outside bounded, so their totals are checked once, as a
    sweep's writer does when it closes)."""
    import sqlite3

    db = sqlite3.connect(big)
    try:
        skip = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] // 2
        after = db.execute(
            "SELECT run_id FROM runs ORDER BY started_at, run_id LIMIT 1 OFFSET ?", (skip - 1,)
        ).fetchone()[0]
    finally:
        db.close()
    argv, env = bounded(SOURCE)
    code = "import sys; from bounded.archive import Archive; Archive(sys.argv[1]).close()"
    measured: dict[str, Any] = {"first open to write": timed([argv[0], "-c", code, str(big)], env)}
    for label, src in sources.items():
        with tempfile.TemporaryDirectory() as tmp:
            argv, env = bounded(src)
            report = [*argv, "report", str(big), "-o", f"{tmp}/report.html"]
            measured[label] = {
                "report": timed(report, env),
                "open and runs page": open_and_page(big, src, skip, after),
                "view first page": first_page(big, src),
            }
        print(f"  grown {label}: {measured[label]}", flush=True)
    return measured


def archive_facts(path: Path) -> dict[str, Any]:
    import sqlite3

    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        games = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        decisions = db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
    finally:
        db.close()
    return {"games": games, "decisions": decisions, "archive_mb": path.stat().st_size / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--game-decisions", type=int, default=10)
    parser.add_argument("--contracts", default="state,balrog-naive")
    parser.add_argument("--archive", type=Path, help="an archive already filled (kept)")
    parser.add_argument("--before", type=Path, help="an older bounded's src, run beside")
    parser.add_argument("--grow", type=int, default=0, help="also time view on K copies")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    from bounded.analysis.provenance import provenance, write_result

    started_at = provenance()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = args.archive
        if path is None:
            path = folder / "games.sqlite"
            contracts = [c for c in args.contracts.split(",") if c]
            fill(path, contracts, args.games * args.game_decisions, args.game_decisions)
        result: dict[str, Any] = {
            "benchmark": "report_scale",
            "model": "scripted:minimal",
            "env": "warehouse",
            "game_decisions": args.game_decisions,
            **archive_facts(path),
            "readers": {},
        }
        sources = {"after": SOURCE} | ({"before": args.before} if args.before else {})
        copies = {label: path for label in sources}
        if args.before:  # its own copy: the code after converts an older format as it opens
            copies["before"] = folder / "before.sqlite"
            shutil.copyfile(path, copies["before"])
        from bounded.archive import Archive

        Archive(path).close()  # an older format converted here, not in the first reader's time
        for label, src in sources.items():
            out = folder / label
            out.mkdir()
            result["readers"][label] = readers(copies[label], src, out)
        if args.before:
            result["before_src"] = str(args.before)
        if args.grow > 1:
            big = grown(path, args.grow, folder)
            result["grown"] = {"copies": args.grow, **archive_facts(big)}
            result["grown"].update(grown_readers(big, sources))
    write_result(args.out, result, started_at)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
