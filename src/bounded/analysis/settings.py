"""A game's settings as the design (`bounded.analysis.design`) and the parity report
(`bounded.analysis.parity`) compare them: every setting of its spec and of its contract's
configuration, each as one line of text, keyed by a name the report prints.

What the spec sets: the model (with its tiers), its endpoint and options (each key:
`model_options.text_grammar`, the default where a game sets none), the reply mode
and the format sent, the temperature and token limit in force, the decision budget
(`max_decisions`), the reasoning budget, the fallback policy, whether each request carries
the game's seed as its sampling seed (`sampling_seed`), and the code that played it
(`code_revision`, where a run records it). What the contract's configuration sets: every
key (nested keys joined by `.`: `contract_config.description_temperature`), except the
keys the contract declares as its memory under test (`MemoryHooks.memory_settings`, recorded
with each game), which are what a comparison of memories varies. The reply mode is
compared as `reply` (the mode played and the format sent); the other reply settings a
configuration holds (`text_rule`, `text_grammar`) as its keys.

The environment and its options are the game's block or a difference of their own (the
design decides which); the seed is its unit; neither is a setting here.

A setting a game does not have (a contract with no reasoning budget, a format a
model-free game never sent) is left out: it differs from no value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from bounded.analysis.replies import reply_label
from bounded.core import RunRecord

SPEC_SETTINGS = (
    "model", "base_url", "reply", "temperature", "max_tokens", "max_decisions", "reasoning",
    "fallback", "sampling_seed", "code_revision",
)  # fmt: skip
"""The settings every game is compared on, in the order the report names them; then its
contract's configuration (`CONFIG` + key)."""

CONFIG = "contract_config."
"""The prefix of a contract configuration's keys."""

MODEL_OPTIONS = "model_options."
"""The prefix of the model options' keys (`text_grammar`, `retry.timeout_s`): every game has
them, a game that sets none plays the model's defaults."""

DEFAULT = "(default)"


def missing_value(setting: str) -> str | None:
    """What a game that lacks a setting has: the default, for a model option; else nothing
    (None: the setting is not the game's, and differs from no value)."""
    return DEFAULT if setting.startswith(MODEL_OPTIONS) else None


DEFAULT_REPLY = "constrained"
"""The reply mode of a run that records none (every reply of an older bounded was decoded
under a JSON schema of the legal actions)."""

SAID_ELSEWHERE = ("reply", "reply_fallback", "reasoning", "reasoning_chars", "fallback")
"""Configuration keys compared as a setting of their own (`reply`: the mode played, as the
run records it; `reasoning`: the budget in force; `fallback`: the policy)."""

NOT_COMPARED = ("store_dir",)
"""Configuration keys that name where a store lives, not what the game plays (the store's
content is compared by its hash, `RunRecord.store_hashes`)."""


def text(value: Any) -> str:
    """One setting's value as the report prints it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def model_of(spec: Mapping[str, Any], model: str) -> str:
    """The model, with the tiers of a game that names some (`combat=...`)."""
    tiers = spec.get("models") or {}
    extra = ", ".join(f"{kind}={tier}" for kind, tier in sorted(tiers.items()))
    return f"{model} ({extra})" if extra else model


def flattened(config: Mapping[str, Any], prefix: str = CONFIG) -> dict[str, str]:
    """A configuration's keys, nested ones joined by `.`, each value as text."""
    found: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, Mapping) and value:
            found.update(flattened(value, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = text(value)
    return found


def config_settings(config: Mapping[str, Any], memory: Iterable[str] = ()) -> dict[str, str]:
    """A contract configuration's compared keys: all but the memory under test, the reply
    mode (compared as `reply`) and where stores live."""
    left_out = {*memory, *SAID_ELSEWHERE, *NOT_COMPARED}
    return flattened({key: value for key, value in config.items() if key not in left_out})


def _known(settings: Mapping[str, Any]) -> dict[str, str]:
    """The settings a game has, as text, in `SPEC_SETTINGS` order then by key."""
    listed = {key: settings[key] for key in SPEC_SETTINGS if key in settings}
    rest = {key: settings[key] for key in sorted(settings) if key not in SPEC_SETTINGS}
    return {key: text(value) for key, value in {**listed, **rest}.items()}


def memory_keys(recorded: Any) -> tuple[str, ...]:
    """The configuration keys a game records as its contract's memory under test
    (`memory_settings`: the runner records the contract's `MemoryHooks.memory_settings` with
    the run, a sweep's dry run with each planned game); none for a run of an older bounded,
    whose every key is then compared."""
    if isinstance(recorded, list | tuple):
        return tuple(str(key) for key in recorded)
    return ()


# -- archived runs ----------------------------------------------------------------------------


def run_reply(run: RunRecord) -> str | None:
    """The run's reply mode and the format sent (`constrained (json_schema)`), `constrained`
    for a run of an older bounded, None for a game that asked the model nothing (its
    format was never sent)."""
    recorded = run.model_params.get("reply")
    if isinstance(recorded, Mapping) and recorded.get("mode"):
        if not recorded.get("replies") and not run.model_calls:
            return None
        return reply_label(recorded)
    if run.decisions and not run.model_calls:
        return None
    configured = (run.spec.get("contract_config") or {}).get("reply")
    return str(configured or DEFAULT_REPLY)


def settings_of_run(run: RunRecord) -> dict[str, str]:
    """Every compared setting of an archived run (see the module docstring)."""
    params, spec = run.model_params, run.spec
    found: dict[str, Any] = {"model": model_of(spec, run.model)}
    if spec.get("base_url"):
        found["base_url"] = spec["base_url"]
    reply = run_reply(run)
    if reply is not None:
        found["reply"] = reply
    for key in ("temperature", "max_tokens"):
        if key in params or key in spec:
            found[key] = params.get(key, spec.get(key))
    if "max_decisions" in spec:
        found["max_decisions"] = spec["max_decisions"]
    if "reasoning_chars" in params:
        found["reasoning"] = reasoning_text(params["reasoning_chars"])
    config = run.contract_config or spec.get("contract_config") or {}
    fallback = params.get("fallback") or config.get("fallback")
    if fallback:
        found["fallback"] = fallback
    if "sampling_seed" in params:
        found["sampling_seed"] = seed_sent(params["sampling_seed"] is not None)
    revision = run.code_revision
    if revision:
        found["code_revision"] = revision
    memory = memory_keys(params.get("memory_settings"))
    return {
        **_known(found),
        **flattened(spec.get("model_options") or {}, MODEL_OPTIONS),
        **config_settings(config, memory),
    }


def seed_sent(sent: bool) -> str:
    """The sampling seed each request carries: the game's, or none (BALROG's clients)."""
    return "the game's" if sent else "none"


def reasoning_text(value: Any) -> Any:
    return "uncapped" if value is None else value


# -- planned games --------------------------------------------------------------------------


def settings_of_spec(spec: Mapping[str, Any]) -> dict[str, str]:
    """Every compared setting of a planned game: a `GameSpec` as a dict, as it would be
    played (`contract_config` the contract's whole configuration where the caller resolved
    it; `fallback`, `asks_model` and `memory_settings` where the caller knows them)."""
    config = spec.get("contract_config") or {}
    found: dict[str, Any] = {"model": model_of(spec, str(spec.get("model", "")))}
    if spec.get("base_url"):
        found["base_url"] = spec["base_url"]
    if spec.get("asks_model", True):
        found["reply"] = str(config.get("reply") or DEFAULT_REPLY)
    for key in ("temperature", "max_tokens", "max_decisions"):
        if key in spec:
            found[key] = spec[key]
    if found.get("temperature", 0.0) is None:  # what the runner samples at (`GameSpec`)
        found["temperature"] = 0.0
    fallback = spec.get("fallback") or config.get("fallback")
    if fallback:
        found["fallback"] = fallback
    if "sends_game_seed" in spec:
        found["sampling_seed"] = seed_sent(bool(spec["sends_game_seed"]))
    if "reasoning_chars" in config or config.get("reasoning") is False:
        reasoning = config.get("reasoning_chars", "(contract default)")
        found["reasoning"] = "off" if config.get("reasoning") is False else reasoning
        found["reasoning"] = reasoning_text(found["reasoning"])
    memory = memory_keys(spec.get("memory_settings"))
    return {
        **_known(found),
        **flattened(spec.get("model_options") or {}, MODEL_OPTIONS),
        **config_settings(config, memory),
    }


__all__ = [
    "CONFIG",
    "DEFAULT_REPLY",
    "SPEC_SETTINGS",
    "config_settings",
    "memory_keys",
    "missing_value",
    "model_of",
    "settings_of_run",
    "settings_of_spec",
    "text",
]
