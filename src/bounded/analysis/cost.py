"""What tokens cost: prices per model for fresh input, cached input and output, and, for
the embedded model, a latency model from its measured prompt and generation rates.

A prompt token served from a prefix cache (`Completion.cached_tokens`: the provider's,
or the part of the prompt llama.cpp did not recompute) is priced as cached input; every
other prompt token is fresh input. Prices are per million tokens in the source's currency
(`currency`, USD unless a price file says otherwise), or any weights in one unit.

**One price source.** Prices come from an experiment file's `[prices]` table (a sweep
stores them in its archive, where `analyze`, `table`, `report` and `audit` read them back)
or from a price file named on the command line (`--prices FILE`, or the name of a price
file shipped with bounded: `list-2025`, `PRICE_FILES`), with `--price MODEL=...` over them.
Nothing is priced by a built-in default: a model that no source prices is **unpriced**,
and every cost that depends on it reads "unpriced" (`money`), never 0 and never a guess.
Scripted players (`scripted:*`, `expert:*`, `none`) cost 0 unless priced.

A model is priced by its id as the archive records it (`openai:gpt-4.1`), else by its
kind (`local` prices `local:x.gguf`), else by `default` where the source has one
(`price_of`: the one rule `bounded sweep`'s budget uses too). A negative or missing price
is a one-line `ConfigError`.
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


FREE = Prices(input=0.0, cached_input=0.0, output=0.0)

FREE_KINDS = ("scripted", "expert", "none")
"""Model kinds (the part of the id before `:`) that are scripted players: they cost 0."""

DEFAULT_KEY = "default"
"""A price table's key for every model it does not name."""

CURRENCY = "USD"
"""The currency of prices whose source names none."""

UNPRICED = "unpriced"


def is_free(model: str) -> bool:
    """Whether a model id names a scripted player (`scripted:FILE`, `expert:...`, `none`)."""
    return model.split(":", 1)[0] in FREE_KINDS


def price_of(table: Mapping[str, Prices], model: str) -> Prices | None:
    """A model's prices in a table: by its id, else by its kind (`local` for
    `local:x.gguf`), free for a scripted player, else the table's `default`; None when
    the table prices it nowhere (unpriced)."""
    for key in (model, model.split(":", 1)[0]):
        if key in table:
            return table[key]
    return FREE if is_free(model) else table.get(DEFAULT_KEY)


def money(cost: float | None, unpriced: Iterable[str], currency: str, digits: int = 4) -> str:
    """A cost as every command prints it: `0.0123 USD`; `unpriced (MODEL)` where no call
    was priced; `0.0123 USD + unpriced (MODEL)` where some were (no currency: a column
    whose header names it)."""
    missing = ", ".join(sorted(set(unpriced)))
    if missing and not cost:
        return f"{UNPRICED} ({missing})"
    text = f"{cost or 0.0:.{digits}f}" + (f" {currency}" if currency else "")
    return f"{text} + {UNPRICED} ({missing})" if missing else text


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


def cost_text(cost: float | None, digits: int = 4) -> str:
    """A cost column's entry: the number, or `unpriced`."""
    return UNPRICED if cost is None else f"{cost:.{digits}f}"


class CostModel(BaseModel):
    """Prices per model id (a `default` for the rest, where the source gives one), their
    currency and source, and latency models per model id (local models whose id starts
    with `local` default to the embedded model's). No prices at all: every model but the
    scripted players is unpriced."""

    model_config = ConfigDict(extra="forbid")

    default: Prices | None = None
    models: dict[str, Prices] = Field(default_factory=dict)
    latency: dict[str, Latency] = Field(default_factory=dict)
    currency: str = CURRENCY
    sources: list[str] = Field(default_factory=list)
    """Where the prices come from (a file, `--price`, an experiment's stored prices), in
    the order they were laid on; empty where none were given."""

    def table(self) -> dict[str, Prices]:
        """The prices as one table (`default` under its key)."""
        extra = {DEFAULT_KEY: self.default} if self.default is not None else {}
        return {**self.models, **extra}

    def prices(self, model: str) -> Prices | None:
        """The model's prices (`price_of`), or None when it is unpriced."""
        return price_of(self.table(), model)

    def latency_of(self, model: str) -> Latency | None:
        if model in self.latency:
            return self.latency[model]
        return EMBEDDED_LATENCY if model.startswith("local") else None

    def cost(self, model: str, prompt: int, cached: int, completion: int) -> float | None:
        """One model's tokens at its prices; None when it is unpriced."""
        prices = self.prices(model)
        return None if prices is None else prices.cost(prompt, cached, completion)

    def unpriced(self, usage: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """The models of a usage that have no price."""
        return sorted(model for model in usage if self.prices(model) is None)

    def usage_cost(self, usage: Mapping[str, Mapping[str, Any]]) -> float | None:
        """The cost of a run's usage per model (`RunRecord.usage`); None when a model in
        it is unpriced."""
        total = 0.0
        for model, counts in usage.items():
            cost = self.cost(model, *(int(counts.get(k, 0)) for k in USAGE_KEYS))
            if cost is None:
                return None
            total += cost
        return total

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

    def with_prices(
        self, prices: Mapping[str, Prices], source: str = "", currency: str | None = None
    ) -> CostModel:
        """This model with more prices (`default` replaces the default) from `source`."""
        if currency is not None and self.sources and currency != self.currency:
            raise ConfigError(
                f"{source}: prices in {currency}, but {', '.join(self.sources)} in "
                f"{self.currency}: give prices in one currency"
            )
        models = {**self.models, **{k: v for k, v in prices.items() if k != DEFAULT_KEY}}
        return CostModel(
            default=prices.get(DEFAULT_KEY, self.default),
            models=models,
            latency=self.latency,
            currency=currency or self.currency,
            sources=[*self.sources, *([source] if source else [])],
        )

    def describe(self) -> str:
        """What a table's cost columns are: their currency and prices' source, or that
        no prices were given."""
        if not self.sources:
            return (
                "cost: unpriced, no prices given (scripted players cost 0; prices come from "
                "an experiment file's [prices], stored in its archive by its sweep, or "
                "--prices FILE, e.g. --prices list-2025)"
            )
        return f"cost in {self.currency} at the prices of {', '.join(self.sources)}"


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


class PriceFile(BaseModel):
    """A price file's prices, their currency and where they were read."""

    prices: dict[str, Prices]
    currency: str = CURRENCY
    source: str


PRICE_FILES = Path(__file__).parent / "prices"
"""The price files shipped with bounded, each named by its stem (`list-2025`); used only
when named (`--prices list-2025`)."""


def price_file_path(name: str | Path) -> Path:
    """The file `name` names: a path, else a shipped price file's name."""
    path = Path(name)
    shipped = PRICE_FILES / f"{name}.toml"
    if not path.exists() and path.suffix != ".toml" and shipped.exists():
        return shipped
    return path


def read_price_file(name: str | Path) -> PriceFile:
    """The `[prices]` table (and top-level `currency`) of a TOML file (an experiment
    file, a file of prices, or a shipped price file's name)."""
    path = price_file_path(name)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        shipped = ", ".join(sorted(p.stem for p in PRICE_FILES.glob("*.toml")))
        raise ConfigError(f"prices file not found: {path} (shipped: {shipped})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("prices")
    if not isinstance(table, Mapping) or not table:
        raise ConfigError(f"{path}: no [prices] table")
    currency = data.get("currency", CURRENCY)
    if not isinstance(currency, str) or not currency.strip():
        raise ConfigError(f'{path}: currency must be a name, e.g. "USD"')
    source = path.stem if path.parent == PRICE_FILES else str(path)
    return PriceFile(prices=prices_from(table, f"{path}: prices"), currency=currency, source=source)


def load_prices(path: str | Path) -> dict[str, Prices]:
    """The `[prices]` table of a TOML file (see `read_price_file`)."""
    return read_price_file(path).prices


def cost_model(
    specs: Iterable[str] = (), files: Iterable[str | Path] = (), base: CostModel | None = None
) -> CostModel:
    """`base` (default: no prices) with the prices of `files` (paths or shipped price
    files' names), then of `--price` specs."""
    model = base or CostModel()
    for path in files:
        found = read_price_file(path)
        model = model.with_prices(found.prices, found.source, found.currency)
    specs = list(specs)
    if specs:
        given = dict(parse_price(spec) for spec in specs)
        model = model.with_prices(given, "--price " + " ".join(specs))
    return model


def list_prices() -> Prices:
    """The `default` of the shipped `list-2025` price file (a ratio's yardstick)."""
    return read_price_file("list-2025").prices[DEFAULT_KEY]


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
    "CURRENCY",
    "EMBEDDED_LATENCY",
    "FREE",
    "FREE_KINDS",
    "PRICE_FILES",
    "TEMPLATE",
    "UNPRICED",
    "CostModel",
    "Latency",
    "PriceFile",
    "Prices",
    "cached_by_layer",
    "cost_model",
    "cost_text",
    "fit_latency",
    "is_free",
    "list_prices",
    "load_prices",
    "money",
    "parse_price",
    "price_of",
    "prices_from",
    "read_price_file",
]
