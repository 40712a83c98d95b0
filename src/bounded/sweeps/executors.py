"""Where a sweep's games are played: in this process, in local worker processes, or on Ray.

A worker plays one `GameSpec` with `play_game` into a `GameSink` (`bounded.archive.sink`),
the one path every game is written through: each decision with its run row and a
checkpoint, in transactions that check the sweep's lease, so a killed game keeps every
decision but the one in flight and is continued from its last one, and a worker whose
sweep is gone can never write. Local workers share the machine's archive file (SQLite in
WAL mode takes writers from several processes) and die with the driver from their first
instruction (`bounded.sweeps.worker_start`). Ray workers may run on machines without the archive:
they stream their rows to a writer on the driver's node (`bounded.sweeps.ray_stream`),
and a game whose worker is lost continues from its checkpoint on another worker.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from bounded.archive import Archive
from bounded.archive.progress import Lease
from bounded.archive.sink import ArchiveSink, GameSink
from bounded.core import BoundedError, ConfigError, RunRecord
from bounded.protocols import Env
from bounded.runner.plugins import Registrations, registrations, restore_registrations
from bounded.runner.resumption import Resumption
from bounded.runner.spec import GameKey, GameSpec
from bounded.sweeps.ray_join import check_cluster, join
from bounded.sweeps.ray_stream import ArchiveWriter, StreamSink
from bounded.sweeps.worker_start import die_with_parent, worker_boot

if TYPE_CHECKING:
    from bounded.runner.build import Game

EXECUTORS = ("local", "ray")

MAX_LOST_WORKERS = 3
"""Ray workers a game may lose before the sweep gives it up as failed (the next sweep
continues it)."""


class GameResult(BaseModel):
    """A played game as a worker hands it back (its rows are in the archive)."""

    spec: GameSpec
    """What was played."""
    run: RunRecord
    """The final run row (`completed` or `failed`)."""
    resumed: bool = False
    """True when the game continued an interrupted run."""


Claim = Callable[[str], Resumption]
"""Makes an interrupted run (by id) this worker's to continue."""

Guard = Callable[[Env], AbstractContextManager[object]]
"""What a game is played under once its environment is built: with `--concurrency`, the
process's turn for an environment that is not thread-safe (`bounded.sweeps.concurrency`)."""


def unguarded(_env: Env) -> AbstractContextManager[object]:
    return nullcontext()


def play_game(
    spec: GameSpec,
    sink: GameSink,
    *,
    claim: Claim | None = None,
    resume: str | None = None,
    plugins: Registrations | None = None,
    guard: Guard = unguarded,
) -> GameResult:
    """Play one game into `sink`, continuing run `resume` (made ours by `claim`) from its
    last decision when given.

    `plugins` are the names the driver registered at run time (`registrations()`), so a
    worker process knows them too. A game that fails (a model that stays unavailable, an
    engine error, a lost lease) comes back as a `failed` run rather than an exception, so
    one bad game does not stop a sweep. Everything after the environment's constructor
    (the claim, the play, the close) happens under `guard(env)`.
    """
    from bounded.runner.build import build_game

    restore_registrations(plugins or {})
    game = build_game(spec)
    with guard(game.env):
        return play_built(spec, game, sink, claim, resume)


def play_built(
    spec: GameSpec, game: Game, sink: GameSink, claim: Claim | None, resume: str | None
) -> GameResult:
    """`play_game`'s part once the game is built: claim, then `run_game` (a failed game is
    its run row, `failed` with its error)."""
    from bounded.runner.build import run_game, runner_for

    try:
        resumption = claim(resume) if resume and claim else None
    except BoundedError as exc:  # taken by another process since the driver looked
        refused = runner_for(game, archive=sink).run
        game.env.close()
        failed = refused.model_copy(update={"status": "failed", "error": str(exc)})
        return GameResult(spec=spec, run=failed)
    run = run_game(game, archive=sink, resume=resumption, keep_failure=True)
    return GameResult(spec=spec, run=run, resumed=resumption is not None)


def play_in_archive(
    spec: GameSpec,
    archive_path: str,
    lease: Lease | None = None,
    resume: str | None = None,
    plugins: Registrations | None = None,
    guard: Guard = unguarded,
) -> GameResult:
    """Play one game into the archive file, under the sweep's `lease` (a local worker)."""
    from bounded.runner.resume import claim

    with Archive(archive_path) as archive:
        sink = ArchiveSink(archive, lease)
        return play_game(
            spec,
            sink,
            claim=lambda run_id: claim(archive, run_id, lease),
            resume=resume,
            plugins=plugins,
            guard=guard,
        )


def play_streamed(
    spec: GameSpec, writer: Any, plugins: Registrations, resume: str | None = None
) -> GameResult:
    """Play one game on a Ray worker (continuing run `resume`), streaming its rows to the
    driver's `writer` (`bounded.sweeps.ray_stream`)."""
    sink = StreamSink(writer)
    return play_game(spec, sink, claim=sink.claim, resume=resume, plugins=plugins)


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
    archive_path: str
    lease: Lease | None
    gate: Gate
    resumes: dict[GameKey, str]
    """Interrupted runs to continue, by game."""

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
        self.resumes: dict[GameKey, str] = {}

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        for spec in games:
            if not self.gate(spec):
                return
            on_start(0, spec)
            resume = self.resumes.get(spec.key)
            on_done(0, play_in_archive(spec, self.archive_path, self.lease, resume))


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
        self.resumes: dict[GameKey, str] = {}

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        if not games:  # no pool, no worker started for nothing
            return
        scheduler = SlotScheduler(games, self.workers, self.gate)
        # spawn, not fork: the driver holds SQLite connections and a live display thread.
        # Each worker starts through the boot script (`bounded.sweeps.worker_start`), which ties its
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
                    resume = self.resumes.get(spec.key)
                    future = pool.submit(
                        play_in_archive, spec, self.archive_path, self.lease, resume
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

    Workers stream each decision to an `ArchiveWriter` on the driver's node, which writes
    it under the sweep's lease (`bounded.sweeps.ray_stream`). A task whose worker dies (a
    killed process, a lost node) is played again on another worker from its game's last
    checkpoint, up to `MAX_LOST_WORKERS` times. Games in flight are capped at `workers`.
    """

    def __init__(
        self, workers: int, address: str | None = None, archive_path: str | Path = ""
    ) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {workers}")
        self.workers = workers
        self.address = address
        self.archive_path = str(archive_path)
        """The archive the writer opens (the sweep sets it)."""
        self.lease: Lease | None = None
        self.gate: Gate = always
        self.resumes: dict[GameKey, str] = {}

    def _init(self) -> bool:
        """Connect to Ray; returns True when this call started the instance."""
        try:
            import ray
        except ImportError as exc:
            raise ConfigError("the ray executor needs Ray: pip install 'bounded[ray]'") from exc
        if ray.is_initialized():
            return False
        if self.address:
            join(self.address)
        else:
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
        return True

    def _writer(self) -> Any:
        """The archive's writer, an actor on this (the driver's) node."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if not self.archive_path:
            raise ConfigError("the ray executor needs the sweep's archive")
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        actor: Any = ray.remote(num_cpus=0, max_restarts=0)(ArchiveWriter)
        path = str(Path(self.archive_path).resolve())
        return actor.options(scheduling_strategy=here).remote(path, self.lease)

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        if not games:
            return
        import ray

        started_here = self._init()
        writer = None
        try:
            writer = self._writer()
            self._play(games, writer, on_start, on_done)
        finally:
            if writer is not None:
                with suppress(Exception):
                    ray.kill(writer)
            if started_here:
                ray.shutdown()

    def _play(
        self, games: list[GameSpec], writer: Any, on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        import ray

        remote_play: Any = ray.remote(num_cpus=1, max_retries=0)(play_streamed)
        plugins = registrations()
        scheduler = SlotScheduler(games, self.workers, self.gate)
        in_flight: dict[Any, tuple[int, GameSpec]] = {}
        losses: dict[GameKey, int] = {}

        def submit(slot: int, spec: GameSpec, resume: str | None) -> None:
            in_flight[remote_play.remote(spec, writer, plugins, resume)] = (slot, spec)

        def refill() -> None:
            for slot, spec in scheduler.fill():
                on_start(slot, spec)
                submit(slot, spec, self.resumes.get(spec.key))

        refill()
        while in_flight:
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                slot, spec = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError:  # play_game's own failure: a bug
                    raise
                except ray.exceptions.RayError as exc:  # its worker died
                    run_id, ended = ray.get(writer.lost.remote(spec.key))
                    losses[spec.key] = losses.get(spec.key, 0) + 1
                    if ended is not None:  # it died after writing its end
                        again = losses[spec.key] > 1 or spec.key in self.resumes
                        result = GameResult(spec=spec, run=ended, resumed=again)
                    elif losses[spec.key] < MAX_LOST_WORKERS:
                        resume = run_id or self.resumes.get(spec.key)
                        submit(slot, spec, resume)  # on from its checkpoint, elsewhere
                        continue
                    else:
                        result = gave_up(spec, losses[spec.key], exc)
                on_done(slot, result)
                scheduler.release(slot)
            refill()


def gave_up(spec: GameSpec, losses: int, error: Exception) -> GameResult:
    """A game whose workers kept dying: failed for this sweep (its rows stay, checkpointed)."""
    reason = f"WorkerLost: {losses} Ray workers died playing it (last: {type(error).__name__})"
    run = RunRecord(
        run_id="", env_id=spec.env, contract=spec.contract, model=spec.model, seed=spec.seed,
        experiment=spec.experiment, cell=spec.cell, status="failed", error=reason,
    )  # fmt: skip
    return GameResult(spec=spec, run=run)


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
        if address:  # before the sweep writes anything
            address = check_cluster(address)
        return RayExecutor(workers, address, archive_path)
    raise ConfigError(f"unknown executor {name!r} (use {' or '.join(EXECUTORS)})")


__all__ = [
    "EXECUTORS",
    "Executor",
    "GameResult",
    "InlineExecutor",
    "LocalExecutor",
    "RayExecutor",
    "make_executor",
    "play_game",
    "play_in_archive",
]
