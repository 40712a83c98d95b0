"""The warehouse stream (SKILL.state's testbed): STORE / SHIP / WAIT events on N shelves.

After every event the agent reports the number of occupied shelves and the total
number of items shipped so far. Nothing in an observation repeats those counts, so
an agent must carry them across decisions: in its state, or by rereading a transcript.

Two things follow the SKILL.state replication by default (the older forms stay options):
- 12 shelves (`shelves`; this environment's first default was 8);
- `state_hint = "none"`: the `state` contract gets no initial state and no schema, so the
  agent must write a sufficient state itself (`"schema"`: it is handed the answer's layout,
  `{"occupied": 0, "shipped": 0}` and its JSON schema).
A `noop` action (what a contract executes for an unusable reply when its fallback is
`no-op`) is accepted at any event: no report is made for that event, which counts as a
wrong one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from bounded.core import JSON, Action, IllegalActionError, Observation, Outcome
from bounded.envs.base import Choices, TextEnv, with_action_mask

ENV_VERSION = "1"

INSTRUCTIONS = """\
You run a warehouse with {shelves} shelves, numbered 1 to {shelves}. Events arrive one at a time:
- STORE: an item is put on the named shelf, which becomes occupied.
- SHIP: the item on the named shelf leaves the warehouse; the shelf becomes free and
  the shipped total grows by one.
- WAIT: nothing changes.
The warehouse starts empty. After every event, report two numbers: `occupied`, how many
shelves hold an item now, and `shipped`, how many items have been shipped since the start.
Events are shown once; the counts are never shown to you."""


class WarehouseConfig(BaseModel):
    """Settings of one warehouse stream."""

    shelves: int = Field(default=12, ge=1, le=1000)
    """Number of shelves N (12 as in the SKILL.state replication)."""
    horizon: int = Field(default=30, ge=1, le=100_000)
    """Number of events T in an episode."""
    p_wait: float = Field(default=0.2, ge=0.0, le=1.0)
    """Probability that an event is WAIT."""
    state_hint: Literal["none", "schema"] = "none"
    """What the environment suggests to the `state` contract: `none` (the replication's:
    no initial state, no schema) or `schema` (the answer's layout and its JSON schema)."""


NOOP = "noop"
"""The id of the action that makes no report (see the module docstring)."""

STATE_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "occupied": {"type": "integer", "minimum": 0},
        "shipped": {"type": "integer", "minimum": 0},
    },
}
"""The state shape suggested under `state_hint = "schema"`."""


class WarehouseEnv(TextEnv):
    """`bounded/Warehouse-v0`: one seeded event stream per episode.

    Outcome: `victory` when every one of the `horizon` events got a right report (as
    `metrics()["victory"]`); `score` the accuracy (right reports / reports made);
    `progress` the share of the stream answered (reports / horizon); `ended_by` `victory`,
    `defeat` (the stream ended with a wrong report among them) or `running`.
    """

    version = ENV_VERSION

    def __init__(
        self,
        shelves: int = 12,
        horizon: int = 30,
        p_wait: float = 0.2,
        state_hint: Literal["none", "schema"] = "none",
    ) -> None:
        self.config = WarehouseConfig(
            shelves=shelves, horizon=horizon, p_wait=p_wait, state_hint=state_hint
        )
        self.instructions = INSTRUCTIONS.format(shelves=self.config.shelves)
        self._events: list[tuple[str, int]] = []
        self._counts: list[tuple[int, int]] = [(0, 0)]
        self._step = 0
        self._correct = 0
        self._seed: int | None = None
        self._apply_state_hint()
        self.init_spaces(self.choices, kinds=("stream",))

    def _apply_state_hint(self) -> None:
        """The state shape suggested to the `state` contract (none unless `schema`)."""
        hinted = self.config.state_hint == "schema"
        self.state_schema = dict(STATE_SCHEMA) if hinted else None
        self.initial_state = {"occupied": 0, "shipped": 0} if hinted else None

    # -- the stream ---------------------------------------------------------

    @staticmethod
    def generate(config: WarehouseConfig, seed: int) -> list[tuple[str, int]]:
        """The event stream for a seed: a pure function, identical in any process."""
        rng = random.Random(seed)
        occupied: set[int] = set()
        events: list[tuple[str, int]] = []
        for _ in range(config.horizon):
            free = sorted(set(range(1, config.shelves + 1)) - occupied)
            if rng.random() < config.p_wait:
                events.append(("WAIT", 0))
            elif occupied and (not free or rng.random() < 0.45):
                shelf = rng.choice(sorted(occupied))
                occupied.discard(shelf)
                events.append(("SHIP", shelf))
            else:
                shelf = rng.choice(free)
                occupied.add(shelf)
                events.append(("STORE", shelf))
        return events

    @staticmethod
    def running_counts(events: list[tuple[str, int]]) -> list[tuple[int, int]]:
        """(occupied, shipped) after each prefix of the stream, the empty one first."""
        occupied: set[int] = set()
        shipped = 0
        counts = [(0, 0)]
        for kind, shelf in events:
            if kind == "STORE":
                occupied.add(shelf)
            elif kind == "SHIP":
                occupied.discard(shelf)
                shipped += 1
            counts.append((len(occupied), shipped))
        return counts

    def counts_after(self, step: int) -> tuple[int, int]:
        """(occupied, shipped) after the first `step` events (counted once per stream, so a
        step costs the same at any point of a long one)."""
        return self._counts[min(step, len(self._events))]

    def _start_stream(self) -> None:
        self._events = self.generate(self.config, self._seed or 0)
        self._counts = self.running_counts(self._events)

    # -- Gymnasium API ------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._seed = 0 if seed is None else seed
        self._start_stream()
        self._step = 0
        self._correct = 0
        obs = self._observe()
        return obs, with_action_mask({"seed": self._seed}, obs)

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        action = self.resolve_action(action)
        if self._step >= len(self._events):
            raise IllegalActionError("episode is over: call reset()")
        if not isinstance(action, Action) and not action:
            raise IllegalActionError("no action given")
        chosen = action if isinstance(action, Action) else action[0]
        if chosen.id not in ("report", NOOP):
            raise IllegalActionError(f"unknown action {chosen.id!r}: only 'report' is legal")
        self._step += 1
        truth = self.counts_after(self._step)
        reported = (chosen.args.get("occupied"), chosen.args.get("shipped"))
        correct = chosen.id == "report" and reported == truth
        self._correct += int(correct)
        terminated = self._step >= len(self._events)
        info = {"correct": correct, "expected": list(truth), "reported": list(reported)}
        if chosen.id == NOOP:
            info["no_report"] = True
        obs = self._observe()
        return obs, float(correct), terminated, False, with_action_mask(info, obs)

    def choices(self) -> Choices:
        """The one legal action, `report`, until the stream ends."""
        done = self._step >= len(self._events)
        return Choices(legal=[] if done else [self._report_action()], max_actions=1)

    def metrics(self) -> dict[str, Any]:
        reports = self._step
        return {
            "accuracy": self._correct / reports if reports else 0.0,
            "correct": self._correct,
            "reports": reports,
            "horizon": self.config.horizon,
            "victory": reports == self.config.horizon and self._correct == reports,
        }

    def outcome(self) -> Outcome:
        """See the class docstring."""
        metrics = self.metrics()
        victory = bool(metrics["victory"])
        reports, horizon = metrics["reports"], metrics["horizon"]
        ended = "victory" if victory else "defeat" if reports >= horizon else "running"
        return Outcome(
            victory=victory,
            score=metrics["accuracy"],
            progress=min(reports / horizon, 1.0),
            ended_by=ended,
        )

    def save(self) -> JSON:
        return {
            "config": self.config.model_dump(),
            "seed": self._seed,
            "step": self._step,
            "correct": self._correct,
        }

    def load(self, data: JSON) -> None:
        self.config = WarehouseConfig(**data["config"])
        self.instructions = INSTRUCTIONS.format(shelves=self.config.shelves)
        self._apply_state_hint()
        self._seed = data["seed"]
        self._start_stream()
        self._step = data["step"]
        self._correct = data["correct"]

    # -- rendering ----------------------------------------------------------

    def _report_action(self) -> Action:
        n, t = self.config.shelves, self.config.horizon
        schema = {
            "type": "object",
            "properties": {
                "occupied": {"type": "integer", "minimum": 0, "maximum": n},
                "shipped": {"type": "integer", "minimum": 0, "maximum": t},
            },
            "required": ["occupied", "shipped"],
            "additionalProperties": False,
        }
        return Action(id="report", label="report the occupied and shipped counts", schema=schema)

    def _observe(self) -> Observation:
        index = min(self._step, len(self._events) - 1)
        kind, shelf = self._events[index]
        done = self._step >= len(self._events)
        event = "end of stream" if done else (kind if kind == "WAIT" else f"{kind} shelf {shelf}")
        text = f"Event {self._step + 1} of {len(self._events)}: {event}."
        return Observation(
            kind="stream",
            state={"event": kind, "shelf": shelf, "index": self._step, "done": done},
            text=text if not done else "The stream has ended.",
            legal=[] if done else [self._report_action()],
            t=self._step,
        )
