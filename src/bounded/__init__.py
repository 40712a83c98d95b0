"""bounded: long-horizon LLM agents with bounded, typed, inspectable memory."""

from importlib.metadata import PackageNotFoundError, version

from bounded.core import (
    FORMAT_VERSION,
    Action,
    BoundedError,
    Completion,
    ConfigError,
    Contract,
    Decision,
    DecisionRecord,
    Env,
    Expert,
    IllegalActionError,
    Model,
    Observation,
    Prompt,
    RunRecord,
    Segment,
    StepResult,
)

try:
    __version__ = version("bounded")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "FORMAT_VERSION",
    "Action",
    "BoundedError",
    "Completion",
    "ConfigError",
    "Contract",
    "Decision",
    "DecisionRecord",
    "Env",
    "Expert",
    "IllegalActionError",
    "Model",
    "Observation",
    "Prompt",
    "RunRecord",
    "Segment",
    "StepResult",
    "__version__",
]
