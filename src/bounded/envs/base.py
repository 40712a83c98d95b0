"""`TextEnv`: the base of bounded's environments, its defaults, and Gymnasium spaces for
text observations and state-dependent legal actions.

A bounded environment is a Gymnasium environment whose observations are `Observation`s
and whose actions are `Action`s (or a plan of several). Subclass `TextEnv`, implement
`reset`, `step`, `metrics`, `outcome`, `save` and `load`, and call `init_spaces` in
`__init__` with a method that lists what is legal now (a `Choices`):

- `observation_space` (`ObservationSpace`) contains every `Observation` (of the kinds the
  environment names); observations are objects, not arrays: they have no shape and are
  never sampled.
- `action_space` (`LegalActionSpace`) is the current decision's legal actions: `sample()`
  draws one of them (its argument schema, if any, filled with valid values) and
  `contains(x)` says whether `x`, an action or a plan, may be stepped now.
- `reset` and `step` put `info["action_mask"]` (`with_action_mask`): an `int8` array with
  one entry per action of `obs.legal`, all 1 (every listed action is legal). A policy that
  zeroes entries restricts a draw to the rest: `env.action_space.sample(mask=mask)`.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

import gymnasium
import numpy as np

from bounded.core import JSON, Action, ConfigError, Observation, Outcome
from bounded.validation import is_valid

if TYPE_CHECKING:
    from bounded.stores.knowledge import GameKnowledge

ARG_CHARS = string.ascii_letters + string.digits
"""Characters of sampled string arguments: letters and digits, nothing a shell interprets."""
EXTRA_LENGTH = 7
"""How much longer than its minimum a sampled string or array may be, when unbounded."""
NUMBER_SPAN = 100
"""The width of the range a sampled number is drawn from, when one bound (or none) is given."""
MAX_DRAW = 2**63 - 1


class Choices(NamedTuple):
    """What an agent may do at the current decision."""

    legal: Sequence[Action]
    """The legal actions (empty before the first reset and once the episode is over)."""
    max_actions: int = 1
    """How many actions one decision may carry (a plan)."""


# -- arguments -------------------------------------------------------------------------


def sample_args(schema: JSON | None, rng: np.random.Generator) -> JSON:
    """Arguments for an action with argument schema `schema` (None: no arguments): every
    required property, each optional one half of the time, each value drawn by
    `sample_value`."""
    if not schema:
        return {}
    value = sample_value(schema, rng)
    return value if isinstance(value, dict) else {}


def sample_value(schema: JSON, rng: np.random.Generator) -> Any:
    """A value valid under a JSON schema's `const`, `enum`, `anyOf`/`oneOf`, `type`, bounds
    (`minimum`, `maximum`, their exclusive forms, `minLength`, `maxLength`, `minItems`,
    `maxItems`), `properties` and `required`. `pattern`, `format` and `multipleOf` are not
    honoured: an environment refuses such a value as it would any bad argument."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return _pick(schema["enum"], rng)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample_value(_pick(schema[key], rng), rng)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = _pick(kind, rng)
    return _SAMPLERS.get(kind, _sample_null)(schema, rng)


def _pick(options: Sequence[Any], rng: np.random.Generator) -> Any:
    return options[int(rng.integers(len(options)))]


def _sample_object(schema: JSON, rng: np.random.Generator) -> JSON:
    required = set(schema.get("required", []))
    return {
        name: sample_value(sub, rng)
        for name, sub in schema.get("properties", {}).items()
        if name in required or rng.random() < 0.5
    }


def _sample_array(schema: JSON, rng: np.random.Generator) -> list[Any]:
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", low + EXTRA_LENGTH // 2))
    items = schema.get("items")
    item_schema = items if isinstance(items, dict) else {}
    return [sample_value(item_schema, rng) for _ in range(int(rng.integers(low, high + 1)))]


def _sample_string(schema: JSON, rng: np.random.Generator) -> str:
    low = int(schema.get("minLength", 1))
    high = max(low, int(schema.get("maxLength", low + EXTRA_LENGTH)))
    length = int(rng.integers(low, high + 1))
    return "".join(_pick(ARG_CHARS, rng) for _ in range(length))


def _bounds(schema: JSON, step: float) -> tuple[float, float]:
    """The inclusive range of a number: exclusive bounds moved in by `step`, a missing bound
    `NUMBER_SPAN` away from the other (from 0 when neither is given)."""
    low = schema.get("minimum")
    high = schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), int | float):
        low = schema["exclusiveMinimum"] + step
    if isinstance(schema.get("exclusiveMaximum"), int | float):
        high = schema["exclusiveMaximum"] - step
    if low is None:
        low = 0 if high is None or high >= 0 else high - NUMBER_SPAN
    if high is None:
        high = low + NUMBER_SPAN
    return float(low), float(max(low, high))


def _sample_integer(schema: JSON, rng: np.random.Generator) -> int:
    low, high = _bounds(schema, 1)
    return int(rng.integers(int(np.ceil(low)), int(np.floor(high)) + 1))


def _sample_number(schema: JSON, rng: np.random.Generator) -> float:
    low, high = _bounds(schema, 1e-9)
    return float(rng.uniform(low, high))


def _sample_boolean(schema: JSON, rng: np.random.Generator) -> bool:
    return bool(rng.integers(2))


def _sample_null(schema: JSON, rng: np.random.Generator) -> None:
    return None


_SAMPLERS: dict[str, Callable[[JSON, np.random.Generator], Any]] = {
    "object": _sample_object,
    "array": _sample_array,
    "string": _sample_string,
    "integer": _sample_integer,
    "number": _sample_number,
    "boolean": _sample_boolean,
    "null": _sample_null,
}


def args_fit(args: JSON, schema: JSON | None) -> bool:
    """Whether `args` are valid arguments under an action's schema (None: no arguments)."""
    if schema is None:
        return not args
    return is_valid(args, schema)


def draw_action(legal: Sequence[Action], draw: int, weights: np.ndarray | None = None) -> Action:
    """The legal action a random draw (a seed) picks, with arguments filled from its schema:
    the same draw on the same legal actions always gives the same action."""
    rng = np.random.default_rng(draw)
    chosen = legal[int(rng.choice(len(legal), p=weights))]
    if chosen.schema_ is None:
        return chosen.model_copy()
    return chosen.model_copy(update={"args": sample_args(chosen.schema_, rng)})


def legal_mask(obs: Observation) -> np.ndarray:
    """The action mask of an observation: one `int8` 1 per action of `obs.legal`."""
    return np.ones(len(obs.legal), dtype=np.int8)


def with_action_mask(info: dict[str, Any], obs: Observation) -> dict[str, Any]:
    """`info` with the observation's `action_mask` added (see `legal_mask`)."""
    info["action_mask"] = legal_mask(obs)
    return info


def _weights(count: int, mask: Any, probability: Any) -> np.ndarray | None:
    """Gymnasium's `sample(mask=...)` / `sample(probability=...)` over the legal actions, as
    normalised weights (None: uniform)."""
    if mask is not None and probability is not None:
        raise ValueError("give a mask or a probability, not both")
    given = mask if mask is not None else probability
    if given is None:
        return None
    name = "mask" if mask is not None else "probability"
    values = np.asarray(given, dtype=np.float64)
    if values.shape != (count,):
        raise ValueError(f"the {name} has shape {values.shape}; {count} actions are legal now")
    if mask is not None and not np.isin(values, (0, 1)).all():
        raise ValueError("mask entries must be 0 or 1")
    if (values < 0).any() or values.sum() <= 0:
        raise ValueError(f"the {name} allows no legal action")
    return values / values.sum()


# -- spaces -----------------------------------------------------------------------------


class ObservationSpace(gymnasium.spaces.Space[Observation]):
    """Every `Observation` of an environment (of the given kinds, when named): a structured
    object (kind, state, text, legal actions), not an array, so it has no shape and cannot
    be sampled; observations come from the environment."""

    def __init__(self, kinds: Iterable[str] | None = None) -> None:
        super().__init__()
        self.kinds = frozenset(kinds) if kinds is not None else None
        """The decision kinds an observation may have (None: any)."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, Observation) and (self.kinds is None or x.kind in self.kinds)

    def sample(self, mask: Any = None, probability: Any = None) -> Observation:
        raise NotImplementedError("observations come from the environment; they are not sampled")

    def __repr__(self) -> str:
        kinds = "any" if self.kinds is None else ", ".join(sorted(self.kinds))
        return f"ObservationSpace(kinds: {kinds})"


DEFERRED_DRAW = "(deferred draw)"
"""The id of what `LegalActionSpace.sample()` returns when no action is legal."""


class LegalActionSpace(gymnasium.spaces.Space[Action]):
    """The legal actions of an environment's current decision, which change as it plays.

    `sample()` draws one uniformly (`mask=` or `probability=` over `obs.legal` weigh the
    draw, as with Gymnasium's `Discrete`), its argument schema filled by `sample_args`.
    `contains(x)` is true for an action, or a plan of at most `max_actions`, that is legal
    now with arguments valid under its schema.

    Gymnasium's checker samples an action, then resets the environment and steps it: on a
    game whose first decision differs from the current one it would be refused. So an
    environment passes each action through `resolve` before stepping it: the space's latest
    sample, stepped where it is no longer legal, becomes the same draw made at the current
    decision (the same decision always gets the same action). Any other action is left to
    the environment to accept or refuse.
    """

    def __init__(self, choices: Callable[[], Choices], seed: int | None = None) -> None:
        super().__init__(seed=seed)
        self.choices = choices
        """The current decision's legal actions and plan size (an environment's method: a
        deep copy of the environment copies its space bound to the copy)."""
        self._latest: tuple[Action, int] | None = None

    def sample(self, mask: Any = None, probability: Any = None) -> Action:
        """A legal action; on a finished game (nothing is legal), a draw deferred to the
        next decision: stepping it after a reset makes the same draw there."""
        legal = self.choices().legal
        draw = int(self.np_random.integers(MAX_DRAW))
        if not legal:
            action = Action(id=DEFERRED_DRAW, label="a draw among the next decision's actions")
        else:
            action = draw_action(legal, draw, _weights(len(legal), mask, probability))
        self._latest = (action, draw)
        return action

    def contains(self, x: Any) -> bool:
        actions = list(x) if isinstance(x, list | tuple) else [x]
        choices = self.choices()
        if not actions or len(actions) > choices.max_actions:
            return False
        legal = {a.id: a for a in choices.legal}
        return all(
            isinstance(a, Action) and a.id in legal and args_fit(a.args, legal[a.id].schema_)
            for a in actions
        )

    def resolve(self, action: Action | Sequence[Action]) -> Action | Sequence[Action]:
        """`action`, unless it is this space's latest sample and no longer legal: then the
        same draw made among the current decision's legal actions."""
        latest = self._latest
        if latest is None or action is not latest[0] or self.contains(action):
            return action
        legal = self.choices().legal
        return draw_action(legal, latest[1]) if legal else action

    def __repr__(self) -> str:
        return "LegalActionSpace(the current decision's legal actions)"


# -- the base class ---------------------------------------------------------------------


class TextEnv(gymnasium.Env[Observation, Action]):
    """Defaults for the optional members of `bounded.protocols.Env`, and the spaces' set-up."""

    instructions: str = ""
    version: str = "0"
    state_schema: JSON | None = None
    initial_state: JSON | None = None
    thread_safe: bool = True
    """An environment whose whole state lives in its own object; one wrapping a library
    with process-wide state declares False."""
    empty_action: str | None = None
    """The id of the do-nothing action, where the game has one (default: none)."""

    @property
    def presentation(self) -> str:
        """What the model is shown: `bounded` (the environment's own text) or `balrog` (what
        BALROG's wrapper shows, for one that offers it: `BalrogTasks.presentation`)."""
        return "bounded"

    def init_spaces(
        self, choices: Callable[[], Choices], kinds: Iterable[str] | None = None
    ) -> None:
        """Set `observation_space` (observations of `kinds`, None: any) and `action_space`
        (the legal actions `choices()` lists); call it in `__init__`."""
        self.observation_space = ObservationSpace(kinds)
        self.action_space = LegalActionSpace(choices)

    def resolve_action(self, action: Action | Sequence[Action]) -> Action | Sequence[Action]:
        """What `step` should act on (see `LegalActionSpace.resolve`); call it first in `step`."""
        space = getattr(self, "action_space", None)
        return space.resolve(action) if isinstance(space, LegalActionSpace) else action

    def metrics(self) -> dict[str, Any]:
        """The episode's measurements (default: none)."""
        return {}

    def outcome(self) -> Outcome:
        """Default: the `victory` and `score` the metrics report, progress 1 on a victory."""
        metrics = self.metrics()
        victory = metrics.get("victory") is True
        score = metrics.get("score")
        return Outcome(
            victory=victory,
            score=float(score) if isinstance(score, int | float) else float(victory),
            progress=1.0 if victory else 0.0,
        )

    def game_knowledge(self) -> GameKnowledge | None:
        """Default: the typed contract knows nothing of this game beyond the observations."""
        return None

    def default_action(self) -> Action | None:
        """Default: none, an unusable reply executes the first legal action."""
        return None


def progression_outcome(metrics: dict[str, Any], score_key: str = "score") -> Outcome:
    """The `Outcome` of a wrapper scored as BALROG scores it, from its `metrics()`: its
    `victory`, the score under `score_key`, BALROG's `progression`, and why it ended."""
    return Outcome(
        victory=bool(metrics["victory"]),
        score=float(metrics[score_key]),
        progress=metrics["progression"],
        ended_by=metrics["ended_by"],
    )


Presentation = Literal["bounded", "balrog"]
"""What an environment shows (`TextEnv.presentation`)."""
PRESENTATIONS: tuple[Presentation, ...] = ("bounded", "balrog")


def presentation_option(value: str) -> Presentation:
    """The `presentation` option checked: one of `PRESENTATIONS`, else a `ConfigError`."""
    if value in PRESENTATIONS:
        return cast(Presentation, value)
    raise ConfigError(f"presentation: one of {', '.join(PRESENTATIONS)}, not {value!r}")


def balrog_texts(long_term: str, short_term: str = "") -> tuple[str, str]:
    """An observation's `text` and `history_text` under BALROG's presentation: BALROG's
    current observation shows its short-term context (the vitals, the map), a line break,
    then its long-term context, which alone its history keeps."""
    return (f"{short_term}\n{long_term}" if short_term else long_term), long_term


__all__ = [
    "PRESENTATIONS",
    "Choices",
    "LegalActionSpace",
    "ObservationSpace",
    "Presentation",
    "TextEnv",
    "args_fit",
    "balrog_texts",
    "draw_action",
    "legal_mask",
    "presentation_option",
    "progression_outcome",
    "sample_args",
    "sample_value",
    "with_action_mask",
]
