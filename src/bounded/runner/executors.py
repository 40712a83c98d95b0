"""Where a sweep's games are played: in this process, in local worker processes, or on Ray.

A worker plays one `GameSpec` with `play_game`. Local workers share the machine's
archive file (SQLite in WAL mode takes writers from several processes) and write each
decision as it is made, with its run row and a checkpoint, in transactions that check the
sweep's lease (`bounded.archive.progress.LeasedArchive`): a killed game keeps every
decision but the one in flight and is continued by the next sweep, and a worker whose
sweep is gone can never write. Local workers die with the driver from their first
instruction (`bounded.runner.boot`). Ray workers may run on machines without the archive:
they return the whole game (run row and decisions) to the driver, which alone writes the
archive (a lost Ray worker's game is played again from its start).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from bounded.archive.progress import Lease, LeasedArchive
from bounded.core import BoundedError, ConfigError, DecisionRecord, RunRecord
from bounded.runner.boot import die_with_parent, worker_boot
from bounded.runner.plugins import Registrations, registrations, restore_registrations
from bounded.runner.spec import GameKey, GameSpec

EXECUTORS = ("local", "ray")


class GameResult(BaseModel):
    """A played game as a worker hands it back."""

    spec: GameSpec
    """What was played."""
    run: RunRecord
    """The final run row (`completed` or `failed`)."""
    decisions: list[DecisionRecord] = Field(default_factory=list)
    """The decisions, when the worker did not write them to the archive itself."""
    written: bool = False
    """True when the worker saved the run and its decisions to the archive."""
    resumed: bool = False
    """True when the game continued an interrupted run."""


class RecordCollector:
    """Stands in for the archive inside a worker that must not write it: keeps the records."""

    def __init__(self) -> None:
        self.run: RunRecord | None = None
        self.decisions: list[DecisionRecord] = []

    def save_run(self, run: RunRecord) -> None:
        self.run = run.model_copy()

    def add_decision(self, record: DecisionRecord) -> None:
        self.decisions.append(record)


def play_game(
    spec: GameSpec,
    archive_path: str | None = None,
    plugins: Registrations | None = None,
    lease: Lease | None = None,
    resume: str | None = None,
) -> GameResult:
    """Play one game. With `archive_path` the game is written as `bounded run` writes it:
    each decision with the run row that counts it and a checkpoint, in one transaction that
    checks the sweep's `lease` (`LeasedArchive`), and its end never completes a game twice;
    `resume` names an interrupted run of this game to continue from its last decision
    (`bounded.runner.resume.claim`). Without `archive_path` (Ray) the worker hands the
    records back and the driver writes the game whole.

    `plugins` are the names the driver registered at run time (`registrations()`), so a
    worker process knows them too. A game that fails (a model that stays unavailable, an
    engine error) comes back as a `failed` run rather than an exception, so one bad game
    does not stop a sweep.
    """
    from bounded.runner.build import build_game, runner_for
    from bounded.runner.resume import claim

    restore_registrations(plugins or {})
    game = build_game(spec)
    if archive_path is None:
        sink = RecordCollector()
        runner = runner_for(game, archive=sink)
        with suppress(Exception):  # recorded in the run row as `failed` with its error
            runner.execute()
        game.env.close()
        return GameResult(spec=spec, run=runner.run, decisions=sink.decisions)
    with LeasedArchive(archive_path, lease) as archive:
        runner = runner_for(game, archive=archive)
        try:
            resumption = claim(archive, resume) if resume else None
        except BoundedError as exc:  # taken by another process since the driver looked
            game.env.close()
            refused = runner.run.model_copy(update={"status": "failed", "error": str(exc)})
            return GameResult(spec=spec, run=refused, written=True)
        try:
            runner.execute(resume=resumption)
        except Exception:  # recorded in the run row as `failed` with its error
            pass
        finally:
            game.env.close()
    return GameResult(spec=spec, run=runner.run, written=True, resumed=resume is not None)


StartCallback = Callable[[int, GameSpec], None]
DoneCallback = Callable[[int, GameResult], None]
Gate = Callable[[GameSpec], bool]
"""Asked before each game starts; False stops starting games (a sweep's budget)."""


def always(_spec: GameSpec) -> bool:
    return True


class Executor(Protocol):
    """Plays games on `workers` slots, telling the driver when each starts and ends; games
    are written under the sweep's `lease`, and each starts only if the `gate` lets it (both
    set by the sweep before `execute`; after a refusal no game starts)."""

    workers: int
    lease: Lease | None
    gate: Gate
    resumes: dict[GameKey, str] | None
    """Interrupted runs to continue, by game (None: this executor cannot resume: its games
    are written whole)."""

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None: ...


class InlineExecutor:
    """One game at a time in the driver's own process (`--workers 1`)."""

    workers = 1

    def __init__(self, archive_path: Path) -> None:
        self.archive_path = str(archive_path)
        self.lease: Lease | None = None
        self.gate: Gate = always
        self.resumes: dict[GameKey, str] | None = {}

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        for spec in games:
            if not self.gate(spec):
                return
            on_start(0, spec)
            resume = (self.resumes or {}).get(spec.key)
            on_done(0, play_game(spec, self.archive_path, lease=self.lease, resume=resume))


class SlotScheduler:
    """Keeps at most one game in flight per worker slot and refills a slot when it frees."""

    def __init__(self, games: list[GameSpec], workers: int, gate: Gate = always) -> None:
        self._queue: Iterator[GameSpec] = iter(games)
        self._free = list(range(workers - 1, -1, -1))
        self._gate = gate

    def fill(self) -> Iterator[tuple[int, GameSpec]]:
        """Pairs of (free slot, next game) until the slots or the games run out, or the
        gate refuses a game (then no other starts)."""
        while self._free:
            spec = next(self._queue, None)
            if spec is None:
                return
            if not self._gate(spec):
                self._queue = iter(())
                return
            yield self._free.pop(), spec

    def release(self, slot: int) -> None:
        self._free.append(slot)


def start_worker(plugins: Registrations, driver: int) -> None:
    """Worker initializer: check the driver is still the parent (the boot script tied
    the worker's life to it), and know the names it registered."""
    die_with_parent(driver)
    restore_registrations(plugins)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (SIGTERM): the pool's shutdown
    would otherwise wait for their games to end."""
    processes = dict(pool._processes or {})  # the pool names no public handle
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        with suppress(OSError):
            process.terminate()


class LocalExecutor:
    """Worker processes on this machine (`--workers N`); each writes the shared archive."""

    def __init__(self, archive_path: Path, workers: int) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {workers}")
        self.archive_path = str(archive_path)
        self.workers = workers
        self.lease: Lease | None = None
        self.gate: Gate = always
        self.resumes: dict[GameKey, str] | None = {}

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        if not games:  # no pool, no worker started for nothing
            return
        scheduler = SlotScheduler(games, self.workers, self.gate)
        # spawn, not fork: the driver holds SQLite connections and a live display thread.
        # Each worker starts through the boot script (`bounded.runner.boot`), which ties its
        # life to the driver before Python loads anything of the sweep. Workers are started
        # by submit() on this (the driver's main) thread, which lives as long as the driver.
        context = multiprocessing.get_context("spawn")
        with (
            worker_boot(context),
            ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=start_worker,
                initargs=(registrations(), os.getpid()),
            ) as pool,
        ):
            in_flight: dict[Future[GameResult], int] = {}

            def refill() -> None:
                for slot, spec in scheduler.fill():
                    on_start(slot, spec)
                    resume = (self.resumes or {}).get(spec.key)
                    future = pool.submit(
                        play_game, spec, self.archive_path, None, self.lease, resume
                    )
                    in_flight[future] = slot

            try:
                refill()
                while in_flight:
                    done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in done:
                        slot = in_flight.pop(future)
                        on_done(slot, future.result())
                        scheduler.release(slot)
                    refill()
            except BaseException:  # Ctrl-C, SIGTERM: stop the workers, do not wait for them
                stop_workers(pool)
                raise


class RayExecutor:
    """Ray tasks on a local instance or an existing cluster (`--address`).

    Workers return whole games; the driver writes them. Games in flight are capped at
    `workers` so that a killed driver loses at most that many games.
    """

    def __init__(self, workers: int, address: str | None = None) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {workers}")
        self.workers = workers
        self.address = address
        self.lease: Lease | None = None
        """Ray tasks never write: the driver commits what they return under this lease."""
        self.gate: Gate = always
        self.resumes: dict[GameKey, str] | None = None

    def _init(self) -> bool:
        """Connect to Ray; returns True when this call started the instance."""
        try:
            import ray
        except ImportError as exc:
            raise ConfigError("the ray executor needs Ray: pip install 'bounded[ray]'") from exc
        if ray.is_initialized():
            return False
        if self.address:
            ray.init(address=self.address, log_to_driver=False)
        else:
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
        return True

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        import ray

        started_here = self._init()
        try:
            remote_play: Any = ray.remote(num_cpus=1, max_retries=0)(play_game)
            plugins = registrations()
            scheduler = SlotScheduler(games, self.workers, self.gate)
            in_flight: dict[Any, int] = {}

            def refill() -> None:
                for slot, spec in scheduler.fill():
                    on_start(slot, spec)
                    in_flight[remote_play.remote(spec, None, plugins)] = slot

            refill()
            while in_flight:
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    slot = in_flight.pop(ref)
                    on_done(slot, ray.get(ref))
                    scheduler.release(slot)
                refill()
        finally:
            if started_here:
                ray.shutdown()


def make_executor(
    name: str, *, archive_path: Path, workers: int = 1, address: str | None = None
) -> Executor:
    """`local` (inline for one worker, processes for more) or `ray`."""
    if name == "local":
        if address:
            raise ConfigError("--address is for the ray executor")
        if workers == 1:
            return InlineExecutor(archive_path)
        return LocalExecutor(archive_path, workers)
    if name == "ray":
        return RayExecutor(workers, address)
    raise ConfigError(f"unknown executor {name!r} (use {' or '.join(EXECUTORS)})")


__all__ = [
    "EXECUTORS",
    "Executor",
    "GameResult",
    "InlineExecutor",
    "LocalExecutor",
    "RayExecutor",
    "RecordCollector",
    "make_executor",
    "play_game",
]
