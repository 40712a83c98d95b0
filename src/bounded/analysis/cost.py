"""What tokens cost: prices per model for fresh input, cached input and output, and, for
the embedded model, a latency model from its measured prompt and generation rates.

A prompt token served from a prefix cache (`Completion.cached_tokens`: the provider's,
or the part of the prompt llama.cpp did not recompute) is priced as cached input; every
other prompt token is fresh input. Prices are USD per million tokens, or any weights in
the same unit: only their ratios matter for comparing contracts.

Defaults (`DEFAULT_PRICES`): 3.00 fresh input, 0.30 cached input, 15.00 output, the
list prices of a mid-size hosted model (Anthropic's Claude Sonnet 4, cache reads, 2025)
and the common ratios behind them: a cached token at 10% of a fresh one, output at 5x.
They apply to every model that is given no price of its own, the embedded one included
(for a local model the prices are weights: what it costs is time, `Latency`), except
scripted players (`scripted:*`, `expert:*`, `none`), which cost 0 unless priced.

Set prices in Python (`CostModel(models={"openai:gpt-4.1": Prices(...)})`), in a TOML
table (an experiment file's `[prices]`, or a file of its own, `load_prices`) or on the
command line (`--price MODEL=INPUT,CACHED,OUTPUT`, `parse_price`). A model's key is its
id as the archive records it; `default` prices every other model. A negative or missing
price is a one-line `ConfigError`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bounded.core import ConfigError, first_validation_error

PER_MILLION = 1_000_000


class Prices(BaseModel):
    """One model's prices, USD (or weights) per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    """A fresh prompt token (not served from a cache)."""
    cached_input: float = Field(ge=0)
    """A prompt token served from the prefix cache."""
    output: float = Field(ge=0)
    """A completion token."""

    def cost(self, prompt: int, cached: int, completion: int) -> float:
        """The cost of one call's (or many calls') tokens."""
        fresh = prompt - cached
        total = fresh * self.input + cached * self.cached_input + completion * self.output
        return total / PER_MILLION


DEFAULT_PRICES = Prices(input=3.0, cached_input=0.3, output=15.0)
"""See the module's docstring."""

FREE = Prices(input=0.0, cached_input=0.0, output=0.0)

FREE_KINDS = ("scripted", "expert", "none")
"""Model kinds (the part of the id before `:`) that are scripted players: they cost 0."""


def is_free(model: str) -> bool:
    """Whether a model id names a scripted player (`scripted:FILE`, `expert:...`, `none`)."""
    return model.split(":", 1)[0] in FREE_KINDS


class Latency(BaseModel):
    """A local model's time per call: fresh prompt tokens at the prompt rate, completion
    tokens at the generation rate (cached prompt tokens are not recomputed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_tokens_per_s: float = Field(gt=0)
    output_tokens_per_s: float = Field(gt=0)
    measured: str = ""
    """Where the rates were measured."""

    def seconds(self, fresh: int, completion: int) -> float:
        return fresh / self.prompt_tokens_per_s + completion / self.output_tokens_per_s


EMBEDDED_LATENCY = Latency(
    prompt_tokens_per_s=83.5,
    output_tokens_per_s=24.0,
    measured=(
        "SmolLM2-135M-Instruct (bounded's embedded model), llama.cpp on 2 cores shared with "
        "other work: fitted to the 71 timed calls of the paper-order Act 1 game on seed 1 "
        "(bounded audit ARCHIVE --rates)"
    ),
)
"""The embedded model's rates, fitted to a real run's timed calls (`fit_latency`)."""


class CostModel(BaseModel):
    """Prices per model id (a `default` for the rest) and latency models per model id
    (local models whose id starts with `local:` default to the embedded model's)."""

    model_config = ConfigDict(extra="forbid")

    default: Prices = DEFAULT_PRICES
    models: dict[str, Prices] = Field(default_factory=dict)
    latency: dict[str, Latency] = Field(default_factory=dict)

    def prices(self, model: str) -> Prices:
        """The model's own prices, else 0 for a scripted player, else the default."""
        if model in self.models:
            return self.models[model]
        return FREE if is_free(model) else self.default

    def latency_of(self, model: str) -> Latency | None:
        if model in self.latency:
            return self.latency[model]
        return EMBEDDED_LATENCY if model.startswith("local") else None

    def cost(self, model: str, prompt: int, cached: int, completion: int) -> float:
        return self.prices(model).cost(prompt, cached, completion)

    def usage_cost(self, usage: Mapping[str, Mapping[str, Any]]) -> float:
        """The cost of a run's usage per model (`RunRecord.usage`)."""
        return sum(
            self.cost(model, *(int(counts.get(k, 0)) for k in USAGE_KEYS))
            for model, counts in usage.items()
        )

    def usage_latency(self, usage: Mapping[str, Mapping[str, Any]]) -> float | None:
        """Modelled seconds of a run's calls; None when a model has no latency model."""
        total = 0.0
        for model, counts in usage.items():
            latency = self.latency_of(model)
            if latency is None:
                return None
            prompt, cached, completion = (int(counts.get(k, 0)) for k in USAGE_KEYS)
            total += latency.seconds(prompt - cached, completion)
        return total

    def with_prices(self, prices: Mapping[str, Prices]) -> CostModel:
        """This model with more prices (`default` replaces the default)."""
        models = {**self.models, **{k: v for k, v in prices.items() if k != "default"}}
        default = prices.get("default", self.default)
        return CostModel(default=default, models=models, latency=self.latency)


USAGE_KEYS = ("prompt_tokens", "cached_tokens", "completion_tokens")


def prices_from(table: Mapping[str, Any], where: str = "prices") -> dict[str, Prices]:
    """`{model: {input, cached_input, output}}` validated (one line naming the field)."""
    prices = {}
    for model, entry in table.items():
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}.{model}: give input, cached_input and output")
        try:
            prices[model] = Prices.model_validate(entry)
        except ValidationError as exc:
            raise ConfigError(f"{where}.{model}.{first_validation_error(exc)}") from None
    return prices


def parse_price(spec: str) -> tuple[str, Prices]:
    """`MODEL=INPUT,CACHED,OUTPUT` (per million tokens) into (model, prices)."""
    model, sep, values = spec.rpartition("=")
    parts = [part.strip() for part in values.split(",")]
    if not sep or not model.strip() or len(parts) != 3 or not all(parts):
        raise ConfigError(f"--price takes MODEL=INPUT,CACHED,OUTPUT, got {spec!r}")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        raise ConfigError(f"--price {spec!r}: prices must be numbers") from None
    entry = dict(zip(("input", "cached_input", "output"), numbers, strict=True))
    return model.strip(), prices_from({model.strip(): entry}, "--price")[model.strip()]


def load_prices(path: str | Path) -> dict[str, Prices]:
    """The `[prices]` table of a TOML file (an experiment file, or a file of prices)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"prices file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("prices")
    if not isinstance(table, Mapping) or not table:
        raise ConfigError(f"{path}: no [prices] table")
    return prices_from(table, f"{path}: prices")


def cost_model(
    specs: Iterable[str] = (), files: Iterable[str | Path] = (), base: CostModel | None = None
) -> CostModel:
    """The default cost model with the prices of `files`, then of `--price` specs."""
    model = base or CostModel()
    for path in files:
        model = model.with_prices(load_prices(path))
    return model.with_prices(dict(parse_price(spec) for spec in specs))


def cached_by_layer(segments: Iterable[tuple[str, int]], cached: int) -> dict[str, int]:
    """A cached prefix of `cached` tokens attributed to the layers it covers, in prompt
    order: `segments` are (layer, tokens) in prompt order. Tokens of the chat template
    itself (role markers), which no segment counts, are attributed to `TEMPLATE`."""
    result: dict[str, int] = {}
    left = cached
    for layer, tokens in segments:
        if left <= 0:
            break
        share = min(left, tokens)
        result[layer] = result.get(layer, 0) + share
        left -= share
    if left > 0:
        result[TEMPLATE] = left
    return result


TEMPLATE = "(template)"
"""The pseudo-layer of cached chat-template tokens (see `cached_by_layer`)."""


def fit_latency(calls: Iterable[tuple[int, int, float]], measured: str = "") -> Latency:
    """Prompt and generation rates fitted to calls (fresh prompt tokens, completion
    tokens, seconds) by least squares through the origin: seconds = fresh / prompt rate
    + completion / generation rate."""
    rows = [(float(f), float(c), float(s)) for f, c, s in calls if s > 0]
    sff = sum(f * f for f, _, _ in rows)
    scc = sum(c * c for _, c, _ in rows)
    sfc = sum(f * c for f, c, _ in rows)
    sfy = sum(f * s for f, _, s in rows)
    scy = sum(c * s for _, c, s in rows)
    det = sff * scc - sfc * sfc
    if len(rows) < 2 or det <= 0:
        raise ConfigError(
            "fitting a latency model needs at least two timed calls of different shapes"
        )
    per_prompt = (sfy * scc - scy * sfc) / det
    per_output = (scy * sff - sfy * sfc) / det
    if per_prompt <= 0 or per_output <= 0:
        raise ConfigError("the timed calls give no positive rates (too few, or too noisy)")
    return Latency(
        prompt_tokens_per_s=round(1 / per_prompt, 1),
        output_tokens_per_s=round(1 / per_output, 1),
        measured=measured,
    )


__all__ = [
    "DEFAULT_PRICES",
    "EMBEDDED_LATENCY",
    "FREE",
    "FREE_KINDS",
    "TEMPLATE",
    "CostModel",
    "Latency",
    "Prices",
    "cached_by_layer",
    "cost_model",
    "fit_latency",
    "is_free",
    "load_prices",
    "parse_price",
    "prices_from",
]
