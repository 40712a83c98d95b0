"""Benchmark: the archive at scale: bytes and write time per decision, and what each reader
of a large archive costs in time and peak memory.

For each size N (`--sizes`), one archive is filled with N decisions: warehouse games of
`--game-decisions` decisions (seeds 1, 2, ...) played by the scripted model
(`scripted:minimal`: every reply the minimal instance of its reply schema) under each
contract of `--contracts` in turn (N / contracts decisions each), written through the real
archive writer exactly as a sweep writes (`ArchiveSink`: each decision one transaction with
its run row and checkpoint, committed before the next decision). Per contract: the bytes the
archive file grew by per decision (WAL checkpointed first), the new text it added per
decision (texts not stored before), and the write's milliseconds per decision (the sink's
`decision` call; median and mean). Then each reader runs as its own process under
`/usr/bin/time` (seconds and peak RSS): `bounded analyze`, `bounded audit`,
`bounded export --format parquet`, `--format jsonl` and `--format summary`, `bounded report`;
and `bounded view`'s first page: seconds from the server's start to its first page's answer.
`attribute plan` (only when `--readers` names it: it opens the archive for writing) is
`bounded attribute --layer spec --dry-run`: an attribution's plan of every
decision counted, nothing asked.
`--readers-on ARCHIVE` runs only the readers, on an archive a run with `--keep` left (its
decisions counted; no fill, so no bytes or write times): the same archive read by newer
readers. `--readers` picks which run; `--reader-timeout S` stops a reader after S seconds
and records it as timed out (no number), so one slow reader does not eat the others' time.

`--fill replay` (for large sizes, where playing every game costs more than the write being
measured): per contract, the first `--replay-games` games (seeds 1, 2, ...) are played by the
scripted model into the archive as above, and every call their sink received (start, each
decision, end) is kept; the rest of the N decisions replay those calls, game after game,
under a fresh run id and seed through the same `ArchiveSink` (one transaction per decision,
durable before the next), so the bytes and the write's milliseconds are the real write
path's. What differs from `--fill play`: no game is played after the first ones, so the
replayed decisions add no new text (their texts are already stored) and repeat the recorded
games' prompts, checkpoints and run rows (only the run id and seed change; the run row's
identity hash stays the recorded game's). New text bytes per decision are reported as
measured: the first games' new text spread over all N. A last game shorter than
`--game-decisions` is played, as in `--fill play`.

`--long D` also plays one transcript game of D decisions and one of `--game-decisions`
into fresh archives: bytes per decision of each (a transcript prompt holds every decision
before it; what the archive stores per decision must not grow with the index).

`--before SRC` (a `src` folder of an older bounded) measures the write side by side: short
and long games of `state` and `transcript` played alternately by that code and this one in
subprocesses, `--write-rounds` times each, write ms per decision as the median of rounds.

    .venv/bin/python bench/archive_scale.py [--sizes 10000 100000] [--long 1000]
        [--fill play|replay] [--replay-games 1] [--readers analyze "view first page"]
        [--reader-timeout 600] [--before /tmp/before/src] [--out bench/results/archive_scale.json]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import os
import re
import secrets
import select
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "archive_scale.json"
CONTRACTS = ("state", "balrog-naive", "transcript")
READERS: dict[str, list[str]] = {
    "analyze": ["analyze", "{archive}"],
    "audit": ["audit", "{archive}"],
    "export parquet": ["export", "{archive}", "--format", "parquet", "-o", "{out}/parquet"],
    "export jsonl": ["export", "{archive}", "--format", "jsonl", "-o", "{out}/jsonl"],
    "export summary": ["export", "{archive}", "--format", "summary", "-o", "{out}/summary.json"],
    "report": ["report", "{archive}", "-o", "{out}/report.html"],
    "attribute plan": ["attribute", "{archive}", "--layer", "spec", "--dry-run"],
}
OPT_IN = ("attribute plan",)
"""Readers run only when `--readers` names them: `attribute` opens the archive for writing
(its counterfactuals' table), so it is run on an archive of this benchmark's own or a copy,
never by default on a kept one."""
REPLAY_NOTE = (
    "--fill replay: per contract the first {games} game(s) were played by the scripted model; "
    "the other games replay their sink's calls under a fresh run id and seed through the same "
    "ArchiveSink (one transaction per decision), so they add no new text and repeat the "
    "recorded prompts, checkpoints and run rows; new text bytes per decision are as measured"
)
BOUNDED = [sys.executable, "-c", "from bounded.cli import main; main()"]


Call = tuple[str, tuple[Any, ...]]
"""One call a game's sink received: its name (start, decision, end) and its arguments."""


class TimedSink:
    """The archive's sink, with the time of each decision's write kept, and every call kept
    (a copy of its arguments) when `calls` is a list."""

    def __init__(self, sink: Any, calls: list[Call] | None = None) -> None:
        self.sink, self.calls = sink, calls
        self.write_s: list[float] = []

    def keep(self, name: str, *args: Any) -> None:
        if self.calls is not None:
            self.calls.append((name, copy.deepcopy(args)))

    def start(self, run: Any, point: Any) -> None:
        self.keep("start", run, point)
        self.sink.start(run, point)

    def decision(self, record: Any, run: Any, point: Any) -> None:
        self.keep("decision", record, run, point)
        started = time.perf_counter()
        self.sink.decision(record, run, point)
        self.write_s.append(time.perf_counter() - started)

    def end(self, run: Any) -> Any:
        self.keep("end", run)
        return self.sink.end(run)


def renamed(args: tuple[Any, ...], run_id: str, seed: int) -> tuple[Any, ...]:
    """A kept call's arguments as another run's: its id and seed in every record."""
    from bounded.archive.progress import Checkpoint
    from bounded.core import DecisionRecord, RunRecord

    out: list[Any] = []
    for arg in args:
        if isinstance(arg, RunRecord):
            spec = {**arg.spec, "seed": seed} if "seed" in arg.spec else arg.spec
            out.append(arg.model_copy(update={"run_id": run_id, "seed": seed, "spec": spec}))
        elif isinstance(arg, DecisionRecord):
            out.append(arg.model_copy(update={"run_id": run_id}))
        elif isinstance(arg, Checkpoint):
            out.append(dataclasses.replace(arg, run_id=run_id))
        else:
            out.append(arg)
    return tuple(out)


def replay(archive: Any, calls: list[Call], seed: int) -> list[float]:
    """A kept game's calls written again through a fresh `ArchiveSink` as a new run (a fresh
    id, `seed`): its decisions' write seconds (the renaming is not timed)."""
    from bounded.archive.sink import ArchiveSink

    sink = TimedSink(ArchiveSink(archive))
    run_id = secrets.token_hex(32)
    for name, args in calls:
        getattr(sink, name)(*renamed(args, run_id, seed))
    return sink.write_s


def play(
    archive: Any, contract: str, decisions: int, seed: int, calls: list[Call] | None = None
) -> list[float]:
    """One scripted warehouse game through the archive's sink: its writes' seconds (its
    sink's calls appended to `calls` when given)."""
    from bounded.archive.sink import ArchiveSink
    from bounded.runner.build import build_game, runner_for
    from bounded.runner.spec import GameSpec

    spec = GameSpec(
        env="warehouse",
        env_options={"horizon": decisions},
        contract=contract,
        model="scripted:minimal",
        max_decisions=decisions,
        seed=seed,
        experiment="archive_scale",
        cell=contract,
    )
    game = build_game(spec)
    sink = TimedSink(ArchiveSink(archive), calls)
    try:
        runner_for(game, archive=sink).execute()
    finally:
        game.env.close()
    return sink.write_s


def file_bytes(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return path.stat().st_size


def text_bytes(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT coalesce(sum(length(text)), 0) FROM texts").fetchone()[0])
    finally:
        db.close()


def fill(
    path: Path, contracts: list[str], size: int, game_decisions: int, replay_games: int = 0
) -> dict[str, Any]:
    """Write `size` decisions, contract by contract; what each cost per decision. With
    `replay_games`, only that many games per contract are played and the rest replay their
    sink's calls (`--fill replay`)."""
    from bounded.archive import Archive

    each = size // len(contracts)
    measured: dict[str, Any] = {}
    with Archive(path) as archive:
        seed = 1
        for contract in contracts:
            size0, text0 = file_bytes(path), text_bytes(path)
            writes: list[float] = []
            kept: list[list[Call]] = []
            games = {"played": 0, "replayed": 0}
            started = time.perf_counter()
            while len(writes) < each:
                length = min(game_decisions, each - len(writes))
                whole = length == game_decisions
                if whole and replay_games and len(kept) == replay_games:
                    writes += replay(archive, kept[games["replayed"] % replay_games], seed)
                    games["replayed"] += 1
                else:
                    calls: list[Call] | None = [] if whole and replay_games else None
                    writes += play(archive, contract, length, seed, calls)
                    if calls is not None:
                        kept.append(calls)
                    games["played"] += 1
                seed += 1
            n = len(writes)
            measured[contract] = {
                "decisions": n,
                "bytes_per_decision": (file_bytes(path) - size0) / n,
                "new_text_bytes_per_decision": (text_bytes(path) - text0) / n,
                "write_ms_median": 1000 * statistics.median(writes),
                "write_ms_mean": 1000 * statistics.fmean(writes),
                "fill_s": time.perf_counter() - started,
                "games_played": games["played"],
                "games_replayed": games["replayed"],
            }
            print(f"  {contract}: {json.dumps(measured[contract])}", flush=True)
    return measured


def timed(argv: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Seconds and peak RSS (MB) of one command; `timed_out` (and no number) when it ran
    past `timeout` seconds (it and its children are killed)."""
    command = subprocess.Popen(
        ["/usr/bin/time", "-f", "TIMED %e %M", *argv], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = command.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(command.pid, signal.SIGKILL)
        command.communicate()
        return {"timed_out": True, "timeout_s": timeout}
    match = re.search(r"TIMED ([\d.]+) (\d+)", stderr)
    if command.returncode != 0 or match is None:
        return {"error": (stderr or stdout).strip().splitlines()[-1:]}
    return {"s": float(match[1]), "peak_rss_mb": int(match[2]) / 1024}


def view_first_page(path: Path, timeout: float | None = None) -> dict[str, Any]:
    """Seconds from `bounded view`'s start to its first page's answer, and the page's own;
    `timed_out` when the server gives no URL, or no page, within `timeout` seconds each."""
    started = time.perf_counter()
    server = subprocess.Popen(
        [*BOUNDED, "view", str(path), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        if not select.select([server.stdout], [], [], timeout)[0]:
            return {"timed_out": True, "timeout_s": timeout}
        line = server.stdout.readline()
        url = re.search(r"(http://\S+)", line)
        if url is None:
            return {"error": line.strip()}
        asked = time.perf_counter()
        try:
            with urllib.request.urlopen(url[1], timeout=timeout or 600) as answer:
                page = answer.read()
        except TimeoutError:
            return {"timed_out": True, "timeout_s": timeout}
        done = time.perf_counter()
        return {"s": done - started, "page_s": done - asked, "page_bytes": len(page)}
    finally:
        server.terminate()
        server.wait()


VIEW = "view first page"


def readers(
    path: Path,
    out: Path,
    names: list[str],
    timeout: float | None,
    measured: dict[str, Any],
    save: Callable[[], None],
) -> None:
    """Each reader of `names` (`READERS`' and `VIEW`) on the archive, in that order, into
    `measured`, `save`d after each (a run stopped midway keeps what it measured)."""
    for name in names:
        if name == VIEW:
            measured[name] = view_first_page(path, timeout)
        else:
            args = [a.format(archive=path, out=out) for a in READERS[name]]
            measured[name] = timed([*BOUNDED, *args], timeout)
        print(f"  {name}: {measured[name]}", flush=True)
        report = out / "report.html"
        if name == "report" and report.exists():
            measured["report"]["bytes"] = report.stat().st_size
        save()


def readers_only(
    path: Path, names: list[str], timeout: float | None, out_json: Path, started_at: Any
) -> None:
    """`--readers-on`: the readers on an archive already filled, by its decision count."""
    from bounded.analysis.provenance import write_result

    db = sqlite3.connect(path)
    try:
        size = int(db.execute("SELECT count(*) FROM decisions").fetchone()[0])
    finally:
        db.close()
    measured: dict[str, Any] = {}
    result: dict[str, Any] = {
        "benchmark": "archive_scale",
        "readers_on": str(path),
        "reader_timeout_s": timeout,
        "sizes": {str(size): {"archive_bytes": file_bytes(path), "readers": measured}},
    }

    def save() -> None:
        write_result(out_json, result, started_at)

    with tempfile.TemporaryDirectory() as tmp:
        readers(path, Path(tmp), names, timeout, measured, save)
    save()


def long_transcript(folder: Path, short: int, long: int) -> dict[str, Any]:
    from bounded.archive import Archive

    measured = {}
    for decisions in (short, long):
        path = folder / f"transcript_{decisions}.sqlite"
        Archive(path).close()  # the empty archive's schema is not the games' cost
        size0 = file_bytes(path)
        with Archive(path) as archive:
            writes = play(archive, "transcript", decisions, seed=1)
        measured[str(decisions)] = {
            "decisions": len(writes),
            "bytes_per_decision": (file_bytes(path) - size0) / len(writes),
            "write_ms_median": 1000 * statistics.median(writes),
        }
    ratio = measured[str(long)]["bytes_per_decision"] / measured[str(short)]["bytes_per_decision"]
    return {"games": measured, "long_over_short": ratio}


WRITE_CONTRACTS = ("state", "transcript")


def write_probe(lengths: list[int]) -> None:
    """(In a subprocess.) Write ms per decision of a game of each contract of
    `WRITE_CONTRACTS` at each length, as JSON."""
    from bounded.archive import Archive

    result = {}
    with tempfile.TemporaryDirectory() as folder:
        for contract, decisions in [(c, n) for c in WRITE_CONTRACTS for n in lengths]:
            with Archive(Path(folder) / f"{contract}_{decisions}.sqlite") as archive:
                writes = play(archive, contract, decisions, seed=1)
            result[f"{contract}/{decisions}"] = {
                "write_ms_median": 1000 * statistics.median(writes),
                "write_ms_mean": 1000 * statistics.fmean(writes),
            }
    print(json.dumps(result))


def compare_writes(before_src: Path, rounds: int, lengths: list[int]) -> dict[str, Any]:
    """The write probe of the older code and of this one, alternately, `rounds` times."""
    here = Path(__file__).resolve()
    ours = here.parents[1] / "src"
    samples: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for _ in range(rounds):
        for label, src in (("before", before_src), ("after", ours)):
            env = {**os.environ, "PYTHONPATH": str(src)}
            done = subprocess.run(
                [sys.executable, str(here), "--write-probe", *map(str, lengths)],
                env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            samples[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    result: dict[str, Any] = {"rounds": rounds, "before_src": str(before_src), "games": {}}
    for game in samples["after"][0]:
        row = {}
        for label, runs in samples.items():
            for key in ("write_ms_median", "write_ms_mean"):
                row[f"{label}_{key}"] = statistics.median(run[game][key] for run in runs)
        result["games"][game] = row
        print(f"  write {game}: {row}", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--game-decisions", type=int, default=100)
    parser.add_argument("--contracts", default=",".join(CONTRACTS))
    parser.add_argument("--long", type=int, default=1000, help="0: no long transcript game")
    parser.add_argument("--before", type=Path, help="an older bounded's src, for the writes")
    parser.add_argument("--write-rounds", type=int, default=3)
    parser.add_argument(
        "--write-decisions", type=int, nargs="+", default=[100, 1000],
        help="the lengths of the games whose writes --before compares",
    )  # fmt: skip
    parser.add_argument("--write-probe", type=int, nargs="*", help=argparse.SUPPRESS)
    parser.add_argument(
        "--fill", choices=("play", "replay"), default="play",
        help="replay: play --replay-games games per contract, then replay their writes",
    )  # fmt: skip
    parser.add_argument("--replay-games", type=int, default=1)
    parser.add_argument(
        "--readers", nargs="*", choices=[*READERS, VIEW],
        default=[*(r for r in READERS if r not in OPT_IN), VIEW],
        help="the readers to run on each size, in order",
    )  # fmt: skip
    parser.add_argument("--reader-timeout", type=float, help="seconds; past it: timed out")
    parser.add_argument(
        "--keep", type=Path, help="a folder: the archives are written and left there"
    )  # fmt: skip
    parser.add_argument(
        "--readers-on", type=Path, help="an archive: only the readers, on it (no fill)"
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.write_probe is not None:
        write_probe(args.write_probe)
        return
    from bounded.analysis.provenance import provenance, write_result

    started_at = provenance()
    if args.readers_on is not None:
        readers_only(args.readers_on, args.readers, args.reader_timeout, args.out, started_at)
        return
    contracts = [c for c in args.contracts.split(",") if c]
    result: dict[str, Any] = {
        "benchmark": "archive_scale",
        "model": "scripted:minimal",
        "env": "warehouse",
        "game_decisions": args.game_decisions,
        "contracts": contracts,
        "fill": args.fill,
        "reader_timeout_s": args.reader_timeout,
        **(
            {"fill_note": REPLAY_NOTE.format(games=args.replay_games)}
            if args.fill == "replay"
            else {}
        ),
        "sizes": {},
    }

    def save() -> None:
        write_result(args.out, result, started_at)

    with tempfile.TemporaryDirectory(dir=args.keep) as tmp:
        folder = Path(tmp)
        if args.before is not None:
            print("writes, before and after:", flush=True)
            result["writes"] = compare_writes(args.before, args.write_rounds, args.write_decisions)
        if args.long:
            result["transcript"] = long_transcript(folder, args.game_decisions, args.long)
            print(f"transcript: {result['transcript']}", flush=True)
        for size in args.sizes:
            print(f"{size} decisions:", flush=True)
            path = (args.keep or folder) / f"archive_{size}.sqlite"
            replay_games = args.replay_games if args.fill == "replay" else 0
            written = fill(path, contracts, size, args.game_decisions, replay_games)
            out = folder / f"out_{size}"
            out.mkdir()
            measured: dict[str, Any] = {}
            result["sizes"][str(size)] = {
                "archive_bytes": file_bytes(path),
                "contracts": written,
                "readers": measured,
            }
            save()
            readers(path, out, args.readers, args.reader_timeout, measured, save)
            if args.keep is None:
                path.unlink()
    save()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
