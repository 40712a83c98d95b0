"""The protocols: a contract implements nine members (its name and the loop); the rest of
what the runner asks is grouped in hook sets whose every hook has its default in the
set's class; the runner probes none of them."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from bounded.core import Observation
from bounded.protocols import (
    HOOK_SETS,
    REQUIRED_MEMBERS,
    Contract,
    MemoryHooks,
    ModelBase,
    ReplyHooks,
    SetupHooks,
    hook_names,
)

SOURCE = Path(__file__).parents[1] / "src" / "bounded"


def protocol_members(protocol: type) -> set[str]:
    return set(typing._get_protocol_attrs(protocol))  # type: ignore[attr-defined]


def test_the_contract_protocol_requires_at_most_ten_members() -> None:
    members = protocol_members(Contract)
    required = members - set(HOOK_SETS)
    assert required == set(REQUIRED_MEMBERS)
    assert len(required) <= 10
    assert set(HOOK_SETS) <= members  # each hook set is declared on the protocol
    assert REQUIRED_MEMBERS == (
        "name", "reset", "propose", "assemble", "reply_schema", "parse", "commit", "postrun",
        "config_dict",
    )  # fmt: skip


def test_the_hook_sets_hold_what_the_protocol_held_before() -> None:
    """The 24 members the protocol declared before it was narrowed, each in one place now:
    the loop, or one hook set."""
    before = {
        "name", "paper_temperature", "paper_max_tokens", "memory_settings", "sends_game_seed",
        "max_reply_tokens", "env_options", "action_rate_bound", "reset", "propose",
        "assemble", "reply_schema", "parse", "fallback_policy", "reply_mode", "reply_modes",
        "use_reply_mode", "text_rule_for", "counterfactual_schema", "commit", "postrun",
        "postrun_record", "config_dict", "store_hashes", "memory_snapshot", "memory_logs",
        "restore_memory",
    }  # fmt: skip
    homes = [set(REQUIRED_MEMBERS), *(set(hook_names(kind)) for kind in HOOK_SETS.values())]
    assert before <= set().union(*homes)
    assert sum(len(home) for home in homes) == len(set().union(*homes))  # no member twice


class Bare(ReplyHooks, MemoryHooks, SetupHooks):
    """The hook sets' classes and nothing else but what their defaults read."""

    name = "bare"

    def reply_schema(self, obs: Observation) -> dict:
        return {"type": "object", "title": "bare"}


CALLS: dict[str, tuple[object, ...]] = {
    "fallback_policy": (), "reply_modes": (), "text_rule_for": (Observation(kind="k"),),
    "counterfactual_schema": (Observation(kind="k"), []), "max_reply_tokens": (ModelBase(),),
    "store_hashes": (), "memory_snapshot": (), "memory_logs": (),
    "env_options": ("bounded/Warehouse-v0", {"horizon": 3}), "action_rate_bound": (),
    "asks_model": (None,),
}  # fmt: skip


@pytest.mark.parametrize("hook_set", sorted(HOOK_SETS))
def test_every_hook_has_its_default_in_its_set(hook_set: str) -> None:
    contract = Bare()
    hooks = getattr(contract, hook_set)
    assert hooks is contract
    for hook in hook_names(HOOK_SETS[hook_set]):
        value = getattr(hooks, hook)
        if callable(value) and hook in CALLS:
            value(*CALLS[hook])  # answers, with no NotImplementedError
    assert contract.replies.counterfactual_schema(Observation(kind="k"), []) == {
        "type": "object",
        "title": "bare",
    }
    assert contract.replies.reply_modes() == ["constrained"]


def test_the_runner_and_sweeps_call_every_hook_and_probe_none() -> None:
    """Every hook the runner calls is declared on the protocols, so none is read with
    `getattr` (a plugin without a hook gets its set's default)."""
    probes = [
        f"{path.name}:{number}"
        for folder in ("runner", "sweeps")
        for path in sorted((SOURCE / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(f"getattr({name}" in line for name in ("contract", "env", "model", "self.contract"))
    ]
    assert probes == []
