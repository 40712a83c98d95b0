"""The shared reply settings a contract does not declare.

`reply`, `reply_fallback` and `reasoning_chars` are set for every cell at once (`[defaults]`
of an experiment file, `--reply`, `--reasoning-chars`), so they reach contracts that never
declared them: a plugin's contract, a player of known skill. Such a contract is built
without them, and each is checked against what the contract does without it, so that
nothing asked for is silently not done:

- `reply`: taken where it names the mode the contract plays anyway (`ContractBase`'s
  `constrained`), else refused in one line;
- `reply_fallback`: dropped (without it a refused format stops the run before it plays,
  in one line; it never plays in a mode it was not asked for);
- `reasoning_chars`: taken where it asks for no cap of bounded's own (`model`, `None`),
  else refused: the contract caps nothing.

Every other setting is passed as it is, so a misspelt one is still refused by the
contract."""

from __future__ import annotations

import inspect
from typing import Any

from bounded.core import ConfigError
from bounded.protocols import Contract

SHARED = ("reply", "reply_fallback", "reasoning_chars")
"""The settings experiment files and the command line set for every contract at once."""


def declares(cls: type, name: str) -> bool:
    """Whether `cls(...)` takes keyword `name` (any keyword, with `**settings`)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):  # no signature to read: let the call decide
        return True
    return any(
        p.kind is p.VAR_KEYWORD or (p.name == name and p.kind is not p.POSITIONAL_ONLY)
        for p in parameters
    )


def split_undeclared(cls: type, settings: dict[str, Any]) -> dict[str, Any]:
    """Remove from `settings` the shared settings `cls` does not declare; return them."""
    return {
        name: settings.pop(name) for name in SHARED if name in settings and not declares(cls, name)
    }


def check_undeclared(contract: Contract, undeclared: dict[str, Any], name: str) -> None:
    """Refuse, in one line, an undeclared shared setting that asks for what the contract
    does not do (see the module's docstring)."""
    reply = undeclared.get("reply")
    plays = contract.replies.reply_mode
    if reply is not None and reply != plays:
        raise ConfigError(
            f"contract {name!r} takes no reply setting and plays {plays!r}: "
            f"reply = {reply!r} cannot apply (declare reply in its constructor, "
            "docs/extending.md)"
        )
    cap = undeclared.get("reasoning_chars", "model")
    if cap not in ("model", None):
        raise ConfigError(
            f"contract {name!r} takes no reasoning_chars and caps no reasoning: "
            f"reasoning_chars = {cap!r} cannot apply"
        )


__all__ = ["SHARED", "check_undeclared", "declares", "split_undeclared"]
