"""How an `openai:` model counts tokens when a reply carries no usage: a function, an
embedded model's or a GGUF file's vocabulary (llama.cpp loads the vocabulary only, from the
`local` extra), or `approx_tokens`."""

from __future__ import annotations

from pathlib import Path

from bounded.core import ConfigError, TokenCounter, approx_tokens
from bounded.registry import missing_extra


def token_counter(tokenizer: TokenCounter | str | None) -> TokenCounter:
    """A function as given; an embedded model's name or a GGUF path: its vocabulary's count;
    None: `approx_tokens`."""
    if tokenizer is None:
        return approx_tokens
    if callable(tokenizer):
        return tokenizer
    return gguf_token_counter(tokenizer)


def gguf_token_counter(name: str) -> TokenCounter:
    """Tokens as a GGUF model's vocabulary counts them (llama.cpp loads the vocabulary only)."""
    from bounded.models.local import EMBEDDED

    path = EMBEDDED[name].path() if name in EMBEDDED else Path(name)
    if not path.is_file():
        raise ConfigError(
            f"tokenizer {name!r} is neither an embedded model ({', '.join(EMBEDDED)}) "
            "nor a GGUF file"
        )
    try:
        from llama_cpp import Llama
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc, f"tokenizer {name!r}")
        if missing is None:
            raise
        raise missing from exc

    vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=False))

    return count


__all__ = ["gguf_token_counter", "token_counter"]
