"""bounded: long-horizon LLM agents with bounded, typed, inspectable memory.

The public API is what this module exports (`bounded.make`, `make_contract`,
`make_model`, `play`, `run_episode`, `Archive`, the vocabulary of `bounded.core`, and the
`register_*` functions for a user's own plugins); importing it registers our
environments with Gymnasium (`gymnasium.make("bounded/Spire-v0")`). Modules whose name
starts with an underscore, and everything not re-exported by a package's `__init__`,
are internal.
"""

from bounded.archive import Archive
from bounded.contracts import make_contract, register_contract, register_preset
from bounded.core import (
    FORMAT_VERSION,
    Action,
    BoundedError,
    Completion,
    ConfigError,
    Contract,
    ContractBase,
    ContractWrapper,
    Decision,
    DecisionRecord,
    Env,
    EpisodeContext,
    Expert,
    IllegalActionError,
    Model,
    ModelBase,
    Observation,
    Outcome,
    Prompt,
    RunRecord,
    Segment,
    StepResult,
)
from bounded.env_records import EnvRecord
from bounded.envs import TextEnv, make, register_env
from bounded.models import make_model, register_model
from bounded.runner import GameSpec, play, run_episode
from bounded.version import __version__

__all__ = [
    "FORMAT_VERSION",
    "Action",
    "Archive",
    "BoundedError",
    "Completion",
    "ConfigError",
    "Contract",
    "ContractBase",
    "ContractWrapper",
    "Decision",
    "DecisionRecord",
    "Env",
    "EnvRecord",
    "EpisodeContext",
    "Expert",
    "GameSpec",
    "IllegalActionError",
    "Model",
    "ModelBase",
    "Observation",
    "Outcome",
    "Prompt",
    "RunRecord",
    "Segment",
    "StepResult",
    "TextEnv",
    "__version__",
    "make",
    "make_contract",
    "make_model",
    "play",
    "register_contract",
    "register_env",
    "register_model",
    "register_preset",
    "run_episode",
]
