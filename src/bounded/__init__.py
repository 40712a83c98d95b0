"""bounded: long-horizon LLM agents with bounded, typed, inspectable memory.

The public API is `__all__` (docs/extending.md lists it by purpose): running a game
(`GameSpec`, `play`, `Archive`, ...), running an experiment file (`load_experiment`,
`run_sweep`), the records, the protocols and base classes a plugin implements, and the
`register_*` functions. Everything else is internal: modules whose name starts with an
underscore, and names not exported by a package's `__init__` (`FORMAT_VERSION` lives in
`bounded.core`, `ContractWrapper` in `bounded.contracts.base`).

The names are loaded when first used, so that `import bounded` stays cheap; importing it
registers our environments with Gymnasium (`gymnasium.make("bounded/Spire-v0")`).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from bounded.version import __version__

importlib.import_module("bounded.envs")  # registers our environments with Gymnasium

if TYPE_CHECKING:
    from bounded.archive import Archive
    from bounded.contracts import Preset, make_contract, register_contract, register_preset
    from bounded.contracts.base import ContractBase
    from bounded.core import (
        Action,
        BoundedError,
        Completion,
        ConfigError,
        Decision,
        DecisionRecord,
        IllegalActionError,
        Observation,
        Outcome,
        Prompt,
        RunRecord,
        StepResult,
    )
    from bounded.env_records import (
        BalrogTasks,
        BankGame,
        BankPlan,
        BankRecipe,
        EnvRecord,
        TaskOption,
    )
    from bounded.envs import TextEnv, make, register_env
    from bounded.envs.base import Choices
    from bounded.models import make_model, register_model
    from bounded.protocols import Contract, Env, EpisodeContext, Expert, Model, ModelBase
    from bounded.runner import GameSpec, play, run_episode
    from bounded.sweeps.experiment import Experiment, load_experiment
    from bounded.sweeps.sweep import SweepSummary, run_sweep

_CORE = (
    "Action", "BoundedError", "Completion", "ConfigError", "Decision", "DecisionRecord",
    "IllegalActionError", "Observation", "Outcome", "Prompt", "RunRecord", "StepResult",
)  # fmt: skip
_PROTOCOLS = ("Contract", "Env", "EpisodeContext", "Expert", "Model", "ModelBase")
_RECORDS = ("BalrogTasks", "BankGame", "BankPlan", "BankRecipe", "EnvRecord", "TaskOption")

_WHERE: dict[str, str] = {
    **dict.fromkeys(_CORE, "bounded.core"),
    **dict.fromkeys(_PROTOCOLS, "bounded.protocols"),
    **dict.fromkeys(_RECORDS, "bounded.env_records"),
    "Archive": "bounded.archive",
    "Choices": "bounded.envs.base",
    "ContractBase": "bounded.contracts.base",
    "Experiment": "bounded.sweeps.experiment",
    "GameSpec": "bounded.runner",
    "Preset": "bounded.contracts",
    "SweepSummary": "bounded.sweeps.sweep",
    "TextEnv": "bounded.envs",
    "load_experiment": "bounded.sweeps.experiment",
    "make": "bounded.envs",
    "make_contract": "bounded.contracts",
    "make_model": "bounded.models",
    "play": "bounded.runner",
    "register_contract": "bounded.contracts",
    "register_env": "bounded.envs",
    "register_model": "bounded.models",
    "register_preset": "bounded.contracts",
    "run_episode": "bounded.runner",
    "run_sweep": "bounded.sweeps.sweep",
}
"""Each public name and the module that defines it."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f"{__name__}.{name}")  # a subpackage, on first use
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Action",
    "Archive",
    "BalrogTasks",
    "BankGame",
    "BankPlan",
    "BankRecipe",
    "BoundedError",
    "Choices",
    "Completion",
    "ConfigError",
    "Contract",
    "ContractBase",
    "Decision",
    "DecisionRecord",
    "Env",
    "EnvRecord",
    "EpisodeContext",
    "Experiment",
    "Expert",
    "GameSpec",
    "IllegalActionError",
    "Model",
    "ModelBase",
    "Observation",
    "Outcome",
    "Preset",
    "Prompt",
    "RunRecord",
    "StepResult",
    "SweepSummary",
    "TaskOption",
    "TextEnv",
    "__version__",
    "load_experiment",
    "make",
    "make_contract",
    "make_model",
    "play",
    "register_contract",
    "register_env",
    "register_model",
    "register_preset",
    "run_episode",
    "run_sweep",
]
