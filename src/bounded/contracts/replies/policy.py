"""The reply policy: the constraint a model call gets in each reply mode, the reasoning
cap in force, and what runs when a reply is unusable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal

from bounded.core import JSON, Action, Decision, Observation
from bounded.protocols import ANY_JSON_OBJECT, FallbackPolicy, ReplyMode

REASONING_BY_MODEL: Final = "model"
"""A contract's `reasoning_chars` that leaves the reasoning budget to the model."""

ReasoningSetting = int | Literal["model"] | None
"""A contract's `reasoning_chars`: a cap in characters, `model` (the model's own budget),
or None (no cap)."""


def reasoning_chars_in_force(setting: ReasoningSetting, model: Any = None) -> int | None:
    """The cap on a reply's reasoning, in characters, that a contract's `reasoning_chars`
    puts in force with this model; None: no cap. `model` takes the budget the model declares
    (its optional `reasoning_chars` attribute: 120 on the embedded 135M model, which
    degenerates inside long free text), and none where it declares none (endpoint and
    plugin models: the reply's token limit bounds what they write)."""
    if setting != REASONING_BY_MODEL:
        return setting if setting is None else int(setting)
    declared = getattr(model, "reasoning_chars", None)
    return int(declared) if declared else None


def reply_constraint(mode: ReplyMode, schema: Callable[[], JSON]) -> JSON | None:
    """The constraint a model call gets in a reply mode: the reply's schema (`schema()`,
    built only when asked for) when constrained, any JSON object in `json`, none in `text`."""
    if mode == "constrained":
        return schema()
    return dict(ANY_JSON_OBJECT) if mode == "json" else None


NOOP_ACTION = Action(id="noop", label="no action: the reply was unusable")


def fallback_actions(
    obs: Observation, policy: FallbackPolicy, default: Action | None = None
) -> list[Action]:
    """The one fallback rule: what runs when the model's reply is unusable (malformed, or
    no action), under the contract's `fallback_policy()`; `default` is the game's own
    (`Env.default_action()`).

    - `no-op` (the SKILL.state replication's `parse_response`, which "degrades to a no-op
      with a recorded parse_error"): the `noop` action, which an environment that supports
      it takes as doing nothing this decision (the warehouse: no report for the event,
      counted wrong). An environment that refuses it gets the `game-default` fallback
      instead, and the decision records the refusal.
    - `first-legal`: the first legal action as the observation lists it (this toolkit's
      original behaviour).
    - `game-default`: the game's default action (BALROG's: `esc` in NetHack, `Noop` in
      Crafter, `help` in TextWorld), as BALROG's `check_action_validity` does; the first
      legal action where the game declares none.
    """
    if policy == "no-op":
        return [NOOP_ACTION]
    if policy == "first-legal" and obs.legal:
        return list(obs.legal[:1])
    return [default] if default is not None else list(obs.legal[:1])


def idles_for_an_unusable_reply(decision: Decision, empty_action: str | None) -> bool:
    """Whether a contract played the environment's declared empty action in place of an
    unusable reply: the decision records a parse error and carries nothing but the empty
    action (CoS and EpicStar play it where a reply gives no decision, as CoS's reference
    queues `EMPTY ACTION`). Such a decision fell back like one the runner filled in
    (`DecisionRecord.fallback`), so an agent whose replies are unusable shows its fallback
    rate on every environment, with or without an empty action."""
    return (
        decision.parse_error is not None
        and empty_action is not None
        and bool(decision.actions)
        and all(action.id == empty_action for action in decision.actions)
    )
