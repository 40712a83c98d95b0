"""`--concurrency 3` plays the external environments' games exactly as one at a time does:
NetHack, MiniHack, Crafter and BabyAI in threads at once, TextWorld (not thread-safe: one
module-wide parser) one game at a time per process, decision by decision the same."""

from __future__ import annotations

import hashlib
import itertools
import json
import signal
import textwrap
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from bounded.archive import Archive
from bounded.core import JSON, stable_hash
from bounded.envs import make
from bounded.models import register_model
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import run_sweep

MODEL = "test-legal-walk"
WAIT_S = 0.01
"""Each reply's wait, as an endpoint's: the other games' threads play meanwhile."""
SWEEP_TIMEOUT_S = 120
"""A sweep that has not ended by then is taken for a deadlock."""


@dataclass
class Span:
    """When one game's model was first and last called."""

    first: float = 0.0
    last: float = 0.0
    calls: int = 0


@dataclass
class Spans:
    lock: threading.Lock = field(default_factory=threading.Lock)
    games: list[Span] = field(default_factory=list)


SPANS = Spans()


@dataclass
class Interrupt:
    """Where a game's model raises SIGINT in its own call (`at_call`, None: never), so the
    signal arrives while that game is in play however loaded the machine is."""

    at_call: int | None = None
    sent: list[float] = field(default_factory=list)


INTERRUPT = Interrupt()


def walk_instance(schema: JSON, digest: int) -> Any:
    """A value of `schema` whose every choice (enum, branch) the digest draws: the
    schema filler's shape with varied moves, the same for the same prompt."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][digest % len(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = schema[key]
            return walk_instance(branches[digest % len(branches)], digest // len(branches))
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {k: walk_instance(properties.get(k, {}), digest) for k in schema.get("required", [])}
    if kind == "array":
        count = max(schema.get("minItems", 0), 1 if schema.get("maxItems", 1) else 0)
        return [walk_instance(schema.get("items", {}), digest) for _ in range(count)]
    return minimal_instance(schema)


def legal_walk(_rest: str = "", **_options: Any) -> ScriptedModel:
    """A scripted model that plays a varied legal walk drawn from each prompt's hash and
    waits `WAIT_S` per reply; records when its game called it."""
    span = Span()
    with SPANS.lock:
        SPANS.games.append(span)

    def reply(messages: list[dict[str, str]], constraint: JSON | None) -> Any:
        now = time.monotonic()
        span.first, span.last, span.calls = span.first or now, now, span.calls + 1
        if span.calls == INTERRUPT.at_call and not INTERRUPT.sent:
            INTERRUPT.sent.append(now)
            # at the main thread, as a terminal's Ctrl-C: a signal another thread takes
            # reaches Python's handler only once the main thread next wakes
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        time.sleep(WAIT_S)
        blob = json.dumps(messages, sort_keys=True).encode()
        digest = int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")
        return walk_instance(constraint or {}, digest)

    return ScriptedModel(reply, id=MODEL)


register_model(MODEL, legal_walk)

GAMES = 3
ENVIRONMENTS = {
    "nethack": {"max_steps": 30},
    "minihack": {"task": "corridor-r3", "max_steps": 30},
    "crafter": {"area": 32, "max_steps": 30},
    "babyai": {"level": "putnext", "max_steps": 30},
    "textworld": {"task": "coin_collector", "settings": {"level": 3}, "max_steps": 15},
}
"""A few dozen decisions of each (TextWorld's small coin collector generates in seconds)."""


def write_experiment(directory, env: str, options: dict[str, Any]):
    path = directory / f"{env}.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "threads-{env}"
            archive = "{directory / f"{env}.sqlite"}"

            [defaults]
            env = "{env}"
            model = "{MODEL}"
            games = {GAMES}
            env_options = {json.dumps(options).replace('": ', '" = ').replace("{", "{ ")}

            [[cells]]
            tag = "summary"
            contract = "summary"
            """
        )
    )
    return load_experiment(path)


def played(archive_path) -> dict[tuple[str, int], Any]:
    """Each completed game as the archive keeps it, decision by decision: what the model
    was shown (hashed), its reply, the actions, the reward and the environment's info;
    then the outcome."""
    with Archive(archive_path) as archive:
        games = {}
        for run in archive.runs(status="completed"):
            decisions = [
                (
                    stable_hash([(s.layer, s.text) for s in r.segments]),
                    r.completion.text if r.completion else None,
                    [a.model_dump() for a in r.actions],
                    r.reward,
                    stable_hash(r.info),
                )
                for r in archive.decisions(run.run_id)
            ]
            games[(run.cell, run.seed)] = (decisions, run.outcome)
        return games


def sweep(directory, env: str, options: dict[str, Any], concurrency: int) -> list[Span]:
    """Run the sweep (failing on a timeout, taken for a deadlock); each game's span."""
    experiment = write_experiment(directory, env, options)
    SPANS.games.clear()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["summary"] = run_sweep(experiment, concurrency=concurrency)
        except BaseException as exc:  # reported below, in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(SWEEP_TIMEOUT_S)
    assert not thread.is_alive(), f"{env}, --concurrency {concurrency}: no end (a deadlock?)"
    if "error" in outcome:
        raise outcome["error"]
    summary = outcome["summary"]
    assert (summary.played, summary.failed) == (GAMES, []), summary
    return [span for span in SPANS.games if span.calls]


def overlapped(spans: list[Span]) -> bool:
    """Whether every game was being played at one same moment."""
    return max(s.first for s in spans) < min(s.last for s in spans)


def one_at_a_time(spans: list[Span]) -> bool:
    ordered = sorted(spans, key=lambda s: s.first)
    return all(a.last < b.first for a, b in itertools.pairwise(ordered))


@pytest.fixture(scope="module")
def textworld_games(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("textworld-games"))


@pytest.mark.parametrize("env", sorted(ENVIRONMENTS))
def test_concurrent_games_of_each_environment_are_its_games_played_one_at_a_time(
    tmp_path, env, textworld_games
):
    options = dict(ENVIRONMENTS[env])
    if env == "textworld":
        options["games_dir"] = textworld_games
    (tmp_path / "one").mkdir()
    (tmp_path / "threads").mkdir()
    sweep(tmp_path / "one", env, options, concurrency=1)
    spans = sweep(tmp_path / "threads", env, options, concurrency=3)
    expected = played(tmp_path / "one" / f"{env}.sqlite")
    assert len(expected) == GAMES
    assert all(len(decisions) >= 10 for decisions, _ in expected.values())
    assert played(tmp_path / "threads" / f"{env}.sqlite") == expected
    assert len(spans) == GAMES
    built = make(env, **options)
    thread_safe = built.thread_safe
    built.close()
    assert thread_safe == (env != "textworld")
    if thread_safe:
        assert overlapped(spans), "the three games were never in play at once"
    else:
        assert one_at_a_time(spans), "games of a thread-unsafe environment overlapped"


def test_an_interrupt_reaches_the_games_waiting_for_their_turn(tmp_path, textworld_games):
    """SIGINT while one TextWorld game plays and two wait for their turn: the sweep stops at
    once, the game in play closed `failed`, the waiting ones never started; the next sweep
    plays the three games as a sweep never stopped does."""
    options = {**ENVIRONMENTS["textworld"], "games_dir": textworld_games}
    (tmp_path / "ref").mkdir()
    sweep(tmp_path / "ref", "textworld", options, concurrency=1)
    expected = played(tmp_path / "ref" / "textworld.sqlite")
    experiment = write_experiment(tmp_path, "textworld", options)
    SPANS.games.clear()
    INTERRUPT.at_call, INTERRUPT.sent = 2, []  # the first game's second call
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own
    try:
        with pytest.raises(KeyboardInterrupt):
            run_sweep(experiment, concurrency=3)
    finally:
        INTERRUPT.at_call = None
        signal.signal(signal.SIGINT, handler)
    assert time.monotonic() - INTERRUPT.sent[0] < 5  # not the drain's 30 s grace
    with Archive(experiment.archive) as archive:
        runs = archive.runs()
        assert [run.status for run in runs] == ["failed"]  # the waiting games: no run
        assert runs[0].error and runs[0].error.startswith("KeyboardInterrupt")
    summary = run_sweep(experiment, concurrency=3)
    assert (summary.played, summary.failed) == (GAMES, [])
    assert played(experiment.archive) == expected
