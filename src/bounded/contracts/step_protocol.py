"""The game step EpicStar and Chain of Summarization are run at: one action per step.

The paper's agents act once per game step, at a step short enough for one action to be a
policy; the paper gives no step length. On `bounded/Craft-v0` this project plays a
decision every 2 game seconds carrying one action (`decision_interval = 2`,
`max_actions = 1`). That is this project's choice, made by
`bench/epicstar_calibration.py` on calibration games disjoint from every evaluation game
(map highlands, seeds 100-103, levels 5 and 6) by a rule no agent enters: the candidate
step (1, 2, 3, 5 or 10 s) at which the craft expert acting once per step wins most, a tie
to the longer step (the expert won 30, 31, 28, 0 and 0 of 40; docs/episodic.md has the
table).

Both contracts (`paper_temperature`, 0.1) also set the temperature of a game whose spec
does not. Both contracts fill these settings into a game's environment options where the game does
not set them (`env_options`, called by the runner's builder before the environment is
built); a bank records the step it was made at, and an episodic game at another step is
refused (`check_step`).
"""

from __future__ import annotations

from bounded.core import JSON, ConfigError
from bounded.env_records import env_record

PAPER_TEMPERATURE = 0.1
"""The sampling temperature of every call in the paper (Appendix A.1): a game of either
contract runs at it unless its spec sets one (`paper_temperature`)."""

STEP_KEYS = ("decision_interval", "max_actions")
"""The environment options that define one step."""


def one_action_step(env_id: str) -> JSON:
    """The one-action step this project plays on this environment (its record's
    `one_action_step`, on craft this project's calibrated choice, see the module
    docstring), or {} where it has none: it is played as it is."""
    record = env_record(env_id)
    return dict(record.one_action_step) if record is not None else {}


def step_of(options: JSON) -> JSON:
    """The step-defining options among an environment's options."""
    return {key: options[key] for key in STEP_KEYS if key in options}


def describe_step(step: JSON) -> str:
    """`decision_interval=3, max_actions=1` (numbers without a trailing `.0`)."""
    return ", ".join(f"{key}={_number(step[key])}" for key in STEP_KEYS if key in step)


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def same_step(a: JSON, b: JSON) -> bool:
    """Whether two steps agree on every key they both set."""
    return all(float(a[key]) == float(b[key]) for key in STEP_KEYS if key in a and key in b)


def with_step(env_id: str, options: JSON, step: JSON | None = None) -> JSON:
    """A game's environment options with `step` (default: the one-action step on this
    environment) filled in where the options do not set it."""
    fill = one_action_step(env_id) if step is None else step_of(step)
    if not fill:
        return dict(options)
    return {**fill, **options}


def check_step(game: JSON, bank: JSON, *, bank_name: str) -> None:
    """Refuse a game whose step differs from the one its bank was recorded at."""
    if game and bank and not same_step(game, bank):
        raise ConfigError(
            f"bank {bank_name} was recorded at {describe_step(bank)}; this game steps at "
            f"{describe_step(game)}"
        )


__all__ = [
    "PAPER_TEMPERATURE",
    "STEP_KEYS",
    "check_step",
    "describe_step",
    "one_action_step",
    "same_step",
    "step_of",
    "with_step",
]
