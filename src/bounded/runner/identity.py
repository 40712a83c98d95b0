"""A game's identity: its whole `GameSpec` and what the game reads that the spec only names.

Two archived games are the same game only if their specs agree field by field and the
game's **inputs** agree: the environment's content version, the hash of the contract's
resolved configuration (a preset's settings included) and the hash of every store the
contract reads (`MemoryHooks.store_hashes()` as built, before the game: a typed contract's
store directory, an episodic bank). `GameSpec.model_options["retry"]` is left out: how a
failed call is retried changes no game. The canonical hash of both (`identity_hash`) is
archived with every run (`RunRecord.identity`, with `RunRecord.inputs`).

A sweep rerun compares each planned game with the archived completed game of the same
cell and seed (`changed_cells`): a cell whose games differ, or whose archived seeds the
file no longer plans, is refused with one line naming the fields, so that games played
under other settings are never reported under a file that says something else. A learning
phase's games write the store the next one reads, so its store hashes are not compared
(the phase's own resume checks its store, `bounded.sweeps.phases`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from bounded.core import JSON, RunRecord, stable_hash
from bounded.protocols import Contract, Env
from bounded.runner.spec import GameSpec

NOT_IDENTITY = ("model_options.retry",)
"""Spec fields (dotted) that do not change what game is played."""

STORE_PREFIX = "store:"
"""Input keys of the contract's store hashes (`store:dir`, `store:episodic_bank`)."""

WAYS_OUT = (
    "give the cell a new tag (or name) to play it as a new condition, or sweep into a new "
    "archive (bounded sweep FILE ARCHIVE)"
)


def game_inputs(env: Env, contract: Contract) -> dict[str, str]:
    """What a built game reads beyond its spec's strings (see the module's docstring)."""
    inputs = {
        "env_version": str(env.version),
        "contract_config_hash": stable_hash(contract.config_dict()),
    }
    inputs.update({f"{STORE_PREFIX}{k}": v for k, v in contract.memory.store_hashes().items()})
    return inputs


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """A JSON value as {dotted path: leaf} (lists are leaves; an empty table has none, as
    an absent one)."""
    if isinstance(value, Mapping):
        found: dict[str, Any] = {}
        for key, item in value.items():
            found.update(flat(item, f"{prefix}{key}."))
        return found
    return {prefix[:-1]: value}


def identity_fields(spec: GameSpec | JSON) -> dict[str, Any]:
    """The spec's fields that make the game, flattened (`env_options.horizon`)."""
    data = spec.model_dump(mode="json") if isinstance(spec, GameSpec) else spec
    return {
        path: leaf
        for path, leaf in flat(data).items()
        if not any(path == skip or path.startswith(f"{skip}.") for skip in NOT_IDENTITY)
    }


def identity_hash(spec: GameSpec, inputs: Mapping[str, str]) -> str:
    """The canonical hash of a game: its spec's identity fields and its inputs."""
    return stable_hash({"spec": identity_fields(spec), "inputs": dict(inputs)})


def archived_spec(run: RunRecord) -> dict[str, Any] | None:
    """A run's recorded spec with today's defaults filled in; None when it has none or it
    no longer validates (an older bounded's)."""
    if not run.spec:
        return None
    try:
        return identity_fields(GameSpec.model_validate(run.spec))
    except ValidationError:
        return None


def differences(
    planned: GameSpec, inputs: Mapping[str, str] | None, run: RunRecord, *, stores: bool = True
) -> dict[str, tuple[Any, Any]]:
    """Field -> (archived, planned) for each identity field where the run differs from the
    planned game. Inputs are compared when both sides know them (`inputs` None: not
    computed; a run of an older bounded records none); `stores=False` leaves store hashes
    out (a learning phase's). Inputs are named only when the spec's fields agree (a
    changed field changes the inputs that follow from it)."""
    then = archived_spec(run)
    now = identity_fields(planned)
    if then is None:
        return {"spec": ("(none recorded)" if not run.spec else "(an older format)", "...")}
    found = {
        field: (then.get(field), now.get(field))
        for field in sorted({*then, *now})
        if then.get(field) != now.get(field)
    }
    if not found and inputs is not None and run.inputs:  # the spec's fields say more
        found.update(changed_inputs(run.inputs, inputs, stores=stores))
    return found


def changed_inputs(
    then: Mapping[str, str], now: Mapping[str, str], *, stores: bool = True
) -> dict[str, tuple[str | None, str | None]]:
    """Input key -> (then, now) for each input that differs; `stores=False` leaves the
    store hashes out."""
    return {
        key: (then.get(key), now.get(key))
        for key in sorted({*then, *now})
        if (stores or not key.startswith(STORE_PREFIX)) and then.get(key) != now.get(key)
    }


def shown(value: Any, width: int = 40) -> str:
    """A value as a message shows it, cut to `width` characters."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 3] + "..."


def seed_list(seeds: Iterable[int]) -> str:
    ordered = sorted(set(seeds))
    text = ", ".join(str(s) for s in ordered[:8])
    return text + (f", ... ({len(ordered)} seeds)" if len(ordered) > 8 else "")


def changed_cells(
    planned: Iterable[GameSpec],
    archived: Iterable[RunRecord],
    inputs_of: Callable[[GameSpec], Mapping[str, str] | None],
    where: Callable[[str], str],
    phases: Iterable[str] = (),
) -> list[str]:
    """One line per cell of the plan whose archived completed games differ from the plan:
    a game of the same seed under other settings, or archived seeds the plan dropped.
    `inputs_of` gives a planned game's inputs (None when unknown), `where` the cell's name
    in the file (`cells.TAG`), `phases` the cells that are learning phases."""
    by_cell: dict[str, dict[int, GameSpec]] = {}
    for spec in planned:
        by_cell.setdefault(spec.cell, {})[spec.seed] = spec
    learning = set(phases)
    done: dict[str, list[RunRecord]] = {}
    for run in archived:
        if run.status == "completed" and run.cell in by_cell:
            done.setdefault(run.cell, []).append(run)
    lines = []
    for cell, runs in done.items():
        seeds = by_cell[cell]
        fields: dict[str, tuple[Any, Any]] = {}
        dropped = sorted({run.seed for run in runs if run.seed not in seeds})
        for run in runs:
            game = seeds.get(run.seed)
            if game is None:
                continue
            inputs = inputs_of(game)
            if run.identity and run.identity == identity_hash(game, inputs or {}):
                continue
            found = differences(game, inputs, run, stores=cell not in learning)
            for field, values in found.items():
                fields.setdefault(field, values)
        parts = [f"{field} ({shown(a)} -> {shown(b)})" for field, (a, b) in fields.items()]
        if dropped:
            parts.append(
                f"seeds (archived {seed_list(dropped)} not planned; planned {seed_list(seeds)})"
            )
        if parts:
            lines.append(
                f"{where(cell)}: its completed games were played with other settings: "
                f"{'; '.join(parts)}: {WAYS_OUT}"
            )
    return lines


__all__ = [
    "NOT_IDENTITY",
    "WAYS_OUT",
    "archived_spec",
    "changed_cells",
    "differences",
    "game_inputs",
    "identity_fields",
    "identity_hash",
]
