"""Preflight: what would kill a sweep at its first game, found before any game.

Every distinct model a plan names (its spec string, base URL and options) is built once,
as a game would build it, so a misspelt model kind or a missing key is one line naming the
file's own setting; every HTTP endpoint is then reached once. At a sweep's start that is a
`GET /models` (any answer proves the server is there; a refused key is a problem; nothing is
asked of the chat endpoint, so a server's replies are left to the games); a dry run also
asks once in each response format (`bounded.models.probe`) and reports whether the server
returns usage and which formats it accepts, and (`unplayable_cells`) each cell none of whose
reply modes the endpoint can play.

The embedded model is not built here (its weights are verified and loaded by its games);
its spec string is still checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import openai

from bounded.core import JSON, BoundedError, stable_hash
from bounded.models import make_model, split_spec
from bounded.models.openai_compat import OpenAICompatModel, one_line
from bounded.protocols import Model, ReplyMode
from bounded.runner.spec import GameSpec

REACH_TIMEOUT_S = 10.0
"""Seconds one preflight request may take before the endpoint counts as unreachable."""
PROBE_RETRY: JSON = {"timeout_s": REACH_TIMEOUT_S, "attempts": 1, "backoff_s": 0.1}
"""The probe's retry policy: one attempt per format, so a dead server costs seconds."""
NOT_BUILT = ("local",)
"""Model kinds whose construction loads weights: checked by their spec string alone."""


@dataclass(frozen=True)
class ModelUse:
    """One distinct model of a plan, as its games build it."""

    model: str
    base_url: str | None
    options: JSON
    cells: tuple[str, ...]

    @property
    def endpoint(self) -> str:
        at = f" at {self.base_url}" if self.base_url else ""
        return f"model {self.model!r}{at}"

    @property
    def where(self) -> str:
        return f"{self.endpoint} (cells {', '.join(self.cells)})"


@dataclass
class Preflight:
    """What the preflight found: problems (each stops the sweep) and what it learnt."""

    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """One line per endpoint probed: usage and the formats it accepts."""
    playable: list[tuple[ModelUse, dict[ReplyMode, str | None]]] = field(default_factory=list)
    """Per endpoint probed that answered some format: each reply mode and the format that
    plays it there (None: none does)."""


def model_uses(games: Iterable[GameSpec]) -> list[ModelUse]:
    """Each distinct (model, base URL, options) the games name, tiers included."""
    found: dict[str, tuple[str, str | None, JSON, list[str]]] = {}
    for spec in games:
        for model in (spec.model, *spec.models.values()):
            key = stable_hash([model, spec.base_url, spec.model_options])
            entry = found.setdefault(key, (model, spec.base_url, dict(spec.model_options), []))
            if spec.cell not in entry[3]:
                entry[3].append(spec.cell)
    return [ModelUse(m, url, options, tuple(cells)) for m, url, options, cells in found.values()]


def build(use: ModelUse) -> Model | None:
    """The model as a game builds it (None: a kind not built in preflight); raises a
    BoundedError naming the problem."""
    kind = split_spec(use.model)[0]
    if kind in NOT_BUILT:
        return None
    return make_model(use.model, base_url=use.base_url, **dict(use.options))


def reach(model: OpenAICompatModel) -> str | None:
    """`GET /models` once: None when the server answered (any status but a refused key),
    else the problem."""
    client = model.client.with_options(max_retries=0, timeout=REACH_TIMEOUT_S)
    try:
        client.models.list()
    except openai.AuthenticationError as exc:
        return f"the server refused the API key (HTTP {exc.status_code})"
    except openai.PermissionDeniedError as exc:
        return f"the server refused the API key (HTTP {exc.status_code})"
    except openai.APIStatusError:
        return None  # it answered: a server without /models is still there
    except openai.APIConnectionError as exc:
        cause = exc.__cause__ or exc
        return f"cannot reach {model.client.base_url}: {one_line(str(cause), 160)}"
    return None


def unreachable_models(models: Iterable[tuple[str, str | None, Model]]) -> list[str]:
    """A sweep's check of a game built already (`bounded run`): each endpoint model, given
    as (its spec string, base URL, the model built), reached once; a line per problem, in
    the words a sweep's preflight uses."""
    problems = []
    for spec, base_url, model in models:
        if isinstance(model, OpenAICompatModel):
            problem = reach(model)
            if problem:
                use = ModelUse(spec, base_url, {}, ())
                problems.append(f"{use.endpoint}: {problem}")
    return problems


def probe_line(
    use: ModelUse, model: OpenAICompatModel
) -> tuple[str, str | None, dict[ReplyMode, str | None]]:
    """Ask once in each response format: the line saying what the endpoint takes, the
    problem when it took none (it is dead or refuses every request), and each reply mode
    with the format that plays it there (`bounded.models.probe.playable_modes`)."""
    from bounded.models.probe import playable_modes, probe

    model.retry = model.retry.model_copy(update=PROBE_RETRY)
    results = probe(model)
    accepted = [r.format for r in results if r.verdict == "accepted"]
    if not accepted:
        detail = next((r.detail for r in results if r.detail), "no reply")
        return "", f"{use.where}: no response format answered ({detail})", {}
    usage = [r.usage for r in results if r.usage is not None]
    says = "returns usage" if all(usage) and usage else "returns no usage (tokens are counted)"
    refused = [r.format for r in results if r.verdict == "refused"]
    line = f"endpoint {use.where}: {says}; accepts {', '.join(accepted)}"
    line += f"; refuses {', '.join(refused)}" if refused else ""
    return line, None, playable_modes(results)


def model_problems(games: Iterable[GameSpec]) -> tuple[list[str], set[str]]:
    """Every distinct model built once, nothing reached: a line per model that cannot be
    built (a misspelt kind, a missing key), and the cells that name one."""
    problems: list[str] = []
    cells: set[str] = set()
    for use in model_uses(games):
        try:
            build(use)
        except BoundedError as exc:
            problems.append(f"{use.where}: {exc}")
            cells.update(use.cells)
    return problems, cells


def unplayable_cells(
    found: Preflight,
    modes_of: Mapping[str, list[ReplyMode]],
    name: Callable[[str], str] = str,
) -> list[str]:
    """A line per cell none of whose reply modes (`modes_of`: its `reply`, then its
    `reply_fallback`) the endpoint it plays against can play, by the probe of a dry run."""
    from bounded.models.probe import MODE_FORMATS

    lines: dict[str, str] = {}
    for use, playable in found.playable:
        takes = [mode for mode, form in playable.items() if form is not None]
        for cell in use.cells:
            allowed = modes_of.get(cell, [])
            if not allowed or cell in lines or any(playable.get(mode) for mode in allowed):
                continue
            needs = " or ".join(form for mode in allowed for form in MODE_FORMATS[mode])
            lines[cell] = (
                f"{name(cell)}: cannot play against {use.endpoint}: it replies in "
                f"{', '.join(allowed)}, which needs {needs}, and the endpoint takes none of "
                f"them; it plays {', '.join(takes)}: set reply_fallback = {json.dumps(takes)}"
                f" or reply to one of them"
            )
    return list(lines.values())


def preflight(games: Iterable[GameSpec], *, probe_formats: bool = False) -> Preflight:
    """Build every distinct model once and reach every endpoint once (`probe_formats`: ask
    in every response format instead, as a dry run does)."""
    found = Preflight()
    for use in model_uses(games):
        try:
            model = build(use)
        except BoundedError as exc:
            found.problems.append(f"{use.where}: {exc}")
            continue
        if not isinstance(model, OpenAICompatModel):
            continue
        if probe_formats:
            line, problem, playable = probe_line(use, model)
            found.lines.extend([line] if line else [])
            found.playable.extend([(use, playable)] if playable else [])
        else:
            problem = reach(model)
            problem = f"{use.where}: {problem}" if problem else None
        found.problems.extend([problem] if problem else [])
    return found


__all__ = [
    "REACH_TIMEOUT_S",
    "ModelUse",
    "Preflight",
    "model_problems",
    "model_uses",
    "preflight",
    "reach",
    "unplayable_cells",
    "unreachable_models",
]
