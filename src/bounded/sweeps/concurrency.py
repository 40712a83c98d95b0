"""Several games at once inside one sweep worker (`--concurrency N`), for remote models.

A game against an OpenAI-compatible endpoint spends most of its time waiting for the
reply; a worker process that plays one game at a time leaves its core idle. With
`--concurrency N` each worker plays up to N games in threads: `--workers 1` in the
driver's process, more workers in spawned processes started through the boot script
(`bounded.sweeps.worker_start`), so a 2-core machine keeps `workers * N` requests in flight.

Each game is written exactly as a local worker writes it (`play_in_archive`): its own
archive connection and `ArchiveSink`, every decision with its run row and a checkpoint
in one transaction that checks the sweep's lease, so resume and kill-safety are those
of the other executors.
Write transactions of one process take turns on a lock (`bounded.archive.sqlite`), and
SQLite's own lock serialises the processes. A game's play depends only on its spec and
seed, never on which thread plays it or what plays beside it.

A signal in the driver stops the games of its threads as it stops an inline game: each
is raised the interrupt at its next bytecode (as a signal reaches the main thread), so
its run is closed `failed` with the signal named and the next sweep continues it from its
last decision. Worker processes are terminated, their games left `running` for the next
sweep to continue, as `LocalExecutor`'s are.

An environment that declares itself not thread-safe (`Env.thread_safe`, TextWorld's) has
its games take turns: each process plays one such game at a time (the others wait, built
but not started, in their threads), beside any number of other games.

The embedded model (`local`) is refused: its games share the process's CPU, so playing
them at once makes none faster.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from bounded.archive.progress import Lease
from bounded.core import ConfigError
from bounded.protocols import Env
from bounded.runner.plugins import Registrations, registrations, restore_registrations
from bounded.runner.spec import GameKey, GameSpec
from bounded.sweeps.executors import (
    DoneCallback,
    GameResult,
    Gate,
    SlotScheduler,
    StartCallback,
    always,
    play_in_archive,
)
from bounded.sweeps.worker_start import die_with_parent, worker_boot

IN_PROCESS_MODELS = ("local",)
"""Model kinds that compute in the worker's own process: refused with `--concurrency`."""

STOP_GRACE_S = 30.0
"""How long an interrupted driver waits for its threads' games to close their runs (a
game waits for its model call in flight before it sees the interrupt)."""

POLL_S = 0.5
"""How often the driver, waiting for a game's end, checks that its workers live."""

Task = tuple[int, GameSpec, str | None]
"""(slot, game, run to resume) as a worker thread takes it."""

Report = tuple[int, GameResult | None, BaseException | None]
"""(slot, the game's result, or the exception that ended its thread's play)."""


def check_concurrency(concurrency: int, models: Iterable[str]) -> None:
    """Refuse a concurrency below 1, and above 1 for games of an in-process model."""
    if concurrency < 1:
        raise ConfigError(f"--concurrency must be at least 1, got {concurrency}")
    local = sorted(m for m in models if m.partition(":")[0] in IN_PROCESS_MODELS)
    if concurrency > 1 and local:
        raise ConfigError(
            f"--concurrency {concurrency} needs a remote model: {local[0]} runs in the "
            "worker's process, so its games cannot share the CPU usefully (use --workers)"
        )


def interrupt_named(reason: str) -> type[KeyboardInterrupt]:
    """A KeyboardInterrupt class (so named in a closed run's error) that says `reason`:
    what a thread is raised, as a signal raises it in the main thread."""

    def init(self: KeyboardInterrupt, *args: object) -> None:
        KeyboardInterrupt.__init__(self, reason)

    return type("KeyboardInterrupt", (KeyboardInterrupt,), {"__init__": init})


def stop_reason(exc: BaseException) -> str:
    """What the games stopped by `exc` (the driver's) record."""
    if isinstance(exc, KeyboardInterrupt):
        return str(exc) or "interrupted"
    return f"sweep stopped by {type(exc).__name__}"


def transferable(exc: BaseException) -> BaseException:
    """`exc`, or a RuntimeError saying it, when it cannot cross to another process."""
    try:
        pickle.dumps(exc)
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class GameThreads:
    """`concurrency` threads of one process that take games from `inbox` and report each
    game's end to `outbox` (a `None` task ends a thread)."""

    def __init__(
        self,
        inbox: Any,
        outbox: Any,
        archive_path: str,
        lease: Lease | None,
        concurrency: int,
    ) -> None:
        self.inbox, self.outbox = inbox, outbox
        self.archive_path, self.lease = archive_path, lease
        self._playing: dict[int, int] = {}
        """Thread ident -> the slot it plays, while it plays."""
        self._stopped = ""
        """Why the games were interrupted (a game taken after that is not started)."""
        self._lock = threading.Lock()
        self._unsafe_turn = threading.Lock()
        """Held by the one game of a thread-unsafe environment playing in this process."""
        self.threads = [
            threading.Thread(target=self.serve, name=f"bounded-game-{i}", daemon=True)
            for i in range(concurrency)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def serve(self) -> None:
        while True:
            task: Task | None = self.inbox.get()
            if task is None:
                return
            slot, spec, resume = task
            try:
                with self._lock:
                    if self._stopped:
                        raise interrupt_named(self._stopped)()
                    self._playing[threading.get_ident()] = slot
                try:
                    result = play_in_archive(
                        spec, self.archive_path, self.lease, resume, guard=self.turn
                    )
                finally:
                    with self._lock:
                        self._playing.pop(threading.get_ident(), None)
                report: Report = (slot, result, None)
            except BaseException as exc:  # an interrupt raised into this thread, a bug
                report = (slot, None, transferable(exc))
            self.outbox.put(report)

    @contextmanager
    def turn(self, env: Env) -> Iterator[None]:
        """A game of a thread-unsafe environment waits until no other plays in this
        process (an interrupt reaches it while it waits); any other game plays at once."""
        if env.thread_safe:
            yield
            return
        while not self._unsafe_turn.acquire(timeout=POLL_S):
            pass  # an interrupt raised into this thread lands here
        try:
            yield
        finally:
            self._unsafe_turn.release()

    def interrupt(self, reason: str) -> int:
        """Raise the interrupt in every thread playing a game; how many were."""
        stop = ctypes.py_object(interrupt_named(reason))
        with self._lock:
            self._stopped = reason
            for ident in self._playing:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), stop)
            return len(self._playing)

    def join(self) -> None:
        for thread in self.threads:
            while thread.is_alive():
                thread.join(POLL_S)


def serve_process(
    plugins: Registrations,
    driver: int,
    inbox: Any,
    outbox: Any,
    archive_path: str,
    lease: Lease | None,
    concurrency: int,
) -> None:
    """A worker process: its game threads, until the driver says there is no more. Ctrl-C
    reaches the driver's whole process group: the driver alone decides (it terminates
    its workers)."""
    die_with_parent(driver)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    restore_registrations(plugins)
    threads = GameThreads(inbox, outbox, archive_path, lease, concurrency)
    threads.start()
    threads.join()


def concurrent_executor(
    name: str, *, archive_path: str, workers: int, concurrency: int, address: str | None
) -> ConcurrentExecutor:
    """The executor of `--concurrency N` (above 1): local workers only."""
    if name != "local" or address:
        raise ConfigError(f"--concurrency {concurrency} is for the local executor")
    return ConcurrentExecutor(archive_path, workers, concurrency)


class ConcurrentExecutor:
    """`workers` workers (the driver itself for one, else processes) of `concurrency`
    game threads each; `workers` as the sweep sees it counts the slots, one per game in
    flight."""

    def __init__(self, archive_path: str, workers: int, concurrency: int) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {workers}")
        check_concurrency(concurrency, ())
        self.archive_path = archive_path
        self.processes, self.concurrency = workers, concurrency
        self.workers = workers * concurrency
        self.lease: Lease | None = None
        self.gate: Gate = always
        self.resumes: dict[GameKey, str] = {}

    def execute(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        if not games:
            return
        if self.processes == 1:
            self._in_driver(games, on_start, on_done)
        else:
            self._in_processes(games, on_start, on_done)

    def _in_driver(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        inbox: queue.Queue[Task | None] = queue.Queue()
        outbox: queue.Queue[Report] = queue.Queue()
        threads = GameThreads(inbox, outbox, self.archive_path, self.lease, self.concurrency)
        threads.start()
        run = Dispatch(self, games, inbox, outbox, on_start, on_done)
        try:
            run.until_done(alive=lambda: None)
        except BaseException as exc:  # a signal, or a game's thread that failed: stop all
            if threads.interrupt(stop_reason(exc)):
                run.drain(STOP_GRACE_S)
            raise
        finally:
            for _ in threads.threads:
                inbox.put(None)

    def _in_processes(
        self, games: list[GameSpec], on_start: StartCallback, on_done: DoneCallback
    ) -> None:
        context = multiprocessing.get_context("spawn")
        inbox: Any = context.Queue()
        outbox: Any = context.Queue()
        args = (registrations(), os.getpid(), inbox, outbox, self.archive_path, self.lease)
        with worker_boot(context):
            processes = [
                context.Process(target=serve_process, args=(*args, self.concurrency), daemon=True)
                for _ in range(self.processes)
            ]
            for process in processes:
                process.start()

        def alive() -> None:
            for process in processes:
                if process.exitcode is not None:
                    raise RuntimeError(
                        f"sweep worker pid {process.pid} died (exit status {process.exitcode});"
                        " its games continue from their last decision in the next sweep"
                    )

        try:
            Dispatch(self, games, inbox, outbox, on_start, on_done).until_done(alive)
            for _ in range(self.processes * self.concurrency):
                inbox.put(None)
            for process in processes:
                process.join()
        finally:
            for process in processes:
                with suppress(OSError):
                    process.terminate()
            inbox.cancel_join_thread()


class Dispatch:
    """The driver's side: hands games to free slots (the gate asked before each) and
    reports each end, until every started game has ended."""

    def __init__(
        self,
        executor: ConcurrentExecutor,
        games: list[GameSpec],
        inbox: Any,
        outbox: Any,
        on_start: StartCallback,
        on_done: DoneCallback,
    ) -> None:
        self.executor, self.inbox, self.outbox = executor, inbox, outbox
        self.on_start, self.on_done = on_start, on_done
        self.scheduler = SlotScheduler(games, executor.workers, executor.gate)
        self.in_flight = 0

    def refill(self) -> None:
        for slot, spec in self.scheduler.fill():
            self.on_start(slot, spec)
            resume = self.executor.resumes.get(spec.key)
            self.inbox.put((slot, spec, resume))
            self.in_flight += 1

    def next_report(self, alive: Any) -> Report:
        while True:
            try:
                report: Report = self.outbox.get(timeout=POLL_S)
                self.in_flight -= 1
                return report
            except queue.Empty:
                alive()

    def until_done(self, alive: Any) -> None:
        self.refill()
        while self.in_flight:
            slot, result, error = self.next_report(alive)
            if error is not None:
                raise error
            assert result is not None
            self.on_done(slot, result)
            self.scheduler.release(slot)
            self.refill()

    def drain(self, grace_s: float) -> None:
        """Wait (at most `grace_s`) for the games in flight to report their end."""
        deadline = time.monotonic() + grace_s
        while self.in_flight and time.monotonic() < deadline:
            with suppress(queue.Empty):
                self.outbox.get(timeout=POLL_S)
                self.in_flight -= 1


__all__ = ["ConcurrentExecutor", "check_concurrency", "concurrent_executor"]
