"""Models selected by one string: `KIND[:REST]`, or an import path.

Ours: `local` (the embedded model), `local:smollm2`, `local:PATH.gguf`, `openai:MODEL`
(any OpenAI-compatible endpoint: `base_url`, key from the environment) and
`scripted:FILE.jsonl` (fixed replies, for tests of the loop) and `none` (for games a
scripted player plays: any call is an error). A user's model plugs in as
a kind: `register_model("mine", "pkg.mod:make_mine")` or an entry point in the
`bounded.models` group; `mine:REST` then calls `make_mine("REST", **options)`. An import
path works without registering: `pkg.mod:Mine` calls `Mine(**options)`, and
`pkg.mod:Mine:REST` calls `Mine("REST", **options)`.

Options are the model's constructor arguments (`GameSpec.model_options`, an experiment
cell's `model_options`, `make_model(spec, **options)`). `openai:` models take `retry` (a
`bounded.models.openai_compat.RetryPolicy` or a mapping of its fields), `schema_mode` and
`tokenizer`; the in-process models (`local`, `scripted`, `none`) make no network call and
ignore `retry`, as they ignore `base_url`, so one game's options can serve every tier.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from bounded.core import ConfigError
from bounded.protocols import Model
from bounded.registry import Registry, is_import_path, missing_extra


def local_model(
    rest: str, *, base_url: str | None = None, retry: Any = None, **options: Any
) -> Model:
    """The embedded model, or any GGUF file; in-process, so `base_url` and `retry` are not
    used."""
    from bounded.models.local import EMBEDDED, LocalModel

    if rest and rest not in EMBEDDED and not rest.endswith(".gguf"):
        raise ConfigError(f"local model must be an embedded name or a .gguf path, got {rest!r}")
    try:
        if not rest or rest in EMBEDDED:
            return LocalModel(embedded=rest or "smollm2", **options)
        return LocalModel(path=rest, **options)
    except ModuleNotFoundError as exc:  # llama.cpp's bindings are the `local` extra
        missing = missing_extra(exc, f"local:{rest or 'smollm2'}")
        if missing is None:
            raise
        raise missing from exc


def openai_model(rest: str, **options: Any) -> Model:
    from bounded.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(rest, **options)


MINIMAL = "minimal"
"""`scripted:minimal`: every reply is the minimal instance of its reply schema
(`bounded.models.scripted.schema_filler`), unless a file of that name exists."""


def scripted_model(
    rest: str, *, base_url: str | None = None, retry: Any = None, **options: Any
) -> Model:
    """Fixed replies from a JSONL file (`base_url` and `retry` are not used);
    `scripted:minimal` fills every reply schema minimally."""
    from bounded.models.scripted import ScriptedModel

    if not rest:
        raise ConfigError("scripted model needs a replies file: scripted:FILE.jsonl")
    path = Path(rest)
    if rest == MINIMAL and not path.is_file():
        from bounded.models.scripted import schema_filler

        return schema_filler()
    if not path.is_file():
        raise ConfigError(f"scripted replies file not found: {path}")
    replies = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            replies.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not a JSON reply: {exc.msg}") from exc
    return ScriptedModel(replies, cycle=True, **options)


def no_model(rest: str, *, base_url: str | None = None, retry: Any = None, **options: Any) -> Model:
    from bounded.models.none import NoModel

    return NoModel()


MODELS = Registry(
    "model",
    "bounded.models",
    {
        "local": local_model,
        "openai": openai_model,
        "scripted": scripted_model,
        "none": no_model,
    },
)


def register_model(kind: str, factory: Any) -> None:
    """Make `KIND[:REST]` call `factory(REST, **options)` (`"module:attr"` or the callable)."""
    MODELS.register(kind, factory)


def split_spec(spec: str) -> tuple[str, str, str]:
    """(registered kind or import path, the kind's target, REST) of a model spec."""
    kind, _, rest = spec.partition(":")
    if kind in MODELS:
        return kind, MODELS.target(kind), rest
    module, _, tail = spec.partition(":")
    attr, _, rest = tail.partition(":")
    if is_import_path(f"{module}:{attr}"):
        return f"{module}:{attr}", f"{module}:{attr}", rest
    raise ConfigError(
        f"unknown model {spec!r} ({kind_hint(spec)}use {known_kinds()}, or an import path "
        "module:Name)"
    )


def kind_hint(spec: str) -> str:
    """`did you mean KIND:REST? ` for the registered kind closest to the spec's, else ""."""
    kind, _, rest = spec.partition(":")
    close = difflib.get_close_matches(kind, MODELS.names(), n=1)
    return f"did you mean {close[0]}:{rest or '...'}? " if close else ""


def known_kinds() -> str:
    return ", ".join(f"{name}:..." for name in MODELS.names())


def make_model(spec: str, *, base_url: str | None = None, **options: Any) -> Model:
    """Build a model from its spec string; options go to the model's constructor."""
    name, _, rest = split_spec(spec)
    try:
        factory = MODELS.load(name)
    except ConfigError as exc:  # an import path that does not import
        hint = kind_hint(spec)
        raise ConfigError(f"unknown model {spec!r}: {exc} ({hint}known: {known_kinds()})") from exc
    if base_url is not None:
        options["base_url"] = base_url
    registered = name in MODELS
    args = (rest,) if registered or rest else ()
    try:
        model = factory(*args, **options)
    except TypeError as exc:
        raise ConfigError(f"bad options for model {spec!r}: {exc}") from exc
    if not isinstance(model, Model):
        raise ConfigError(
            f"model {spec!r} does not implement bounded.protocols.Model (id, context_window, "
            f"run_deadline_s, complete, count_tokens; bounded.ModelBase gives the optional "
            f"members their defaults): {model!r}"
        )
    return model


__all__ = ["MODELS", "make_model", "register_model", "split_spec"]
