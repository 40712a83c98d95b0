"""Models selected by one string: `local`, `local:smollm2`, `local:PATH.gguf`,
`openai:MODEL` (with a base URL and an API key from the environment), `scripted:FILE.jsonl`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bounded.core import ConfigError, Model


def make_model(spec: str, *, base_url: str | None = None, **options: Any) -> Model:
    """Build a model from its spec string; options go to the model's constructor."""
    kind, _, rest = spec.partition(":")
    if kind == "local":
        from bounded.models.local import EMBEDDED, LocalModel

        if not rest or rest in EMBEDDED:
            return LocalModel(embedded=rest or "smollm2", **options)
        if not rest.endswith(".gguf"):
            raise ConfigError(f"local model must be an embedded name or a .gguf path, got {rest!r}")
        return LocalModel(path=rest, **options)
    if kind == "openai":
        from bounded.models.openai_compat import OpenAICompatModel

        return OpenAICompatModel(rest, base_url=base_url, **options)
    if kind == "scripted":
        from bounded.models.scripted import ScriptedModel

        if not rest:
            raise ConfigError("scripted model needs a replies file: scripted:FILE.jsonl")
        path = Path(rest)
        if not path.is_file():
            raise ConfigError(f"scripted replies file not found: {path}")
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        return ScriptedModel([json.loads(line) for line in lines], cycle=True)
    raise ConfigError(
        f"unknown model {spec!r} (use local, local:PATH.gguf, openai:MODEL, scripted:FILE)"
    )


__all__ = ["make_model"]
