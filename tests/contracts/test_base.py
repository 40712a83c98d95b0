"""What every contract shares: `ContractBase` answers the hook sets with their defaults,
`ContractWrapper` forwards what it does not override (a new hook too, unnamed), and
`as_contract` refuses a contract missing a member of the loop in one line."""

from __future__ import annotations

import pytest

from bounded.contracts.base import ContractBase, ContractWrapper, as_contract
from bounded.core import ConfigError, Decision, Observation, Prompt
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

OBS = Observation(kind="turn", legal=[])


class Plain(ContractBase):
    """A contract naming none of the hooks: the loop only."""

    name = "plain"

    def reset(self, episode):
        pass

    def assemble(self, obs):
        return Prompt().add("obs", "user", obs.text)

    def reply_schema(self, obs):
        return {"type": "object"}

    def parse(self, completion, obs):
        return Decision()

    def commit(self, obs, decision, result):
        pass

    def config_dict(self):
        return {}


class Careful(Plain):
    """Overrides one hook of each set, as a method of its own."""

    name = "careful"
    memory_settings = ("k",)
    paper_temperature = 0.7

    def fallback_policy(self):
        return "no-op"


def test_the_base_gives_every_hook_its_default() -> None:
    contract = Plain()
    assert contract.replies.fallback_policy() == "game-default"
    assert contract.setup.env_options("bounded/Warehouse-v0", {"horizon": 3}) == {"horizon": 3}
    assert contract.setup.paper_temperature is None and contract.memory.memory_snapshot() is None
    assert contract.replies.counterfactual_schema(OBS, []) == {"type": "object"}
    with pytest.raises(ConfigError, match="cannot be resumed"):
        contract.memory.restore_memory({})
    assert (ModelBase.context_window, ModelBase.run_deadline_s) == (None, None)


def test_a_subclass_overrides_a_hook_as_a_method_of_its_own() -> None:
    contract = Careful()
    assert contract.replies.fallback_policy() == "no-op"
    assert contract.memory.memory_settings == ("k",)
    assert contract.setup.paper_temperature == 0.7


def test_neither_the_base_nor_the_wrapper_repeats_a_hook() -> None:
    """A hook lives in its set's class only: the base inherits it, the wrapper forwards it."""
    for kind in HOOK_SETS.values():
        for hook in hook_names(kind):
            assert hook not in vars(ContractBase), hook
            assert hook not in vars(ContractWrapper), hook


def test_a_new_hook_is_one_edit_to_its_set(monkeypatch) -> None:
    """Adding `patience()` to `ReplyHooks`, the one edit, and nothing else: a plain
    `ContractBase` subclass has it, a wrapper forwards it without naming it, and a subclass
    (of a contract, or of the wrapper) that defines it is heard."""
    monkeypatch.setattr(ReplyHooks, "patience", lambda self: 3, raising=False)

    class Patient(Plain):
        def patience(self):
            return 9

    class Impatient(ContractWrapper):
        def patience(self):
            return 0

    def patience(contract: Contract) -> int:
        return contract.replies.patience()  # type: ignore[attr-defined]  # added just now

    assert "patience" in hook_names(ReplyHooks)
    assert patience(Plain()) == 3
    assert patience(ContractWrapper(Plain())) == 3
    assert patience(ContractWrapper(Patient())) == 9
    assert patience(Impatient(Patient())) == 0
    assert patience(as_contract(Structural())) == 3


def test_the_wrapper_forwards_each_set_and_keeps_its_own_overrides() -> None:
    class NoOp(ContractWrapper):
        def fallback_policy(self):
            return "no-op"

    inner = Careful()
    wrapped = ContractWrapper(inner)
    assert wrapped.replies is inner and wrapped.memory is inner and wrapped.setup is inner
    assert wrapped.memory.memory_settings == ("k",) and wrapped.name == "careful"
    overridden = NoOp(Plain())
    assert overridden.replies.fallback_policy() == "no-op"
    assert overridden.replies.reply_modes() == ["constrained"]  # the rest: the inner's
    assert overridden.memory.memory_logs() == ()


class Structural:
    """A contract on no base class, written against the protocol before the hook sets: the
    loop, and one hook of its own."""

    name = "structural"

    def reset(self, episode):
        pass

    def propose(self, obs):
        return None

    def assemble(self, obs):
        return Prompt()

    def reply_schema(self, obs):
        return {"type": "object", "title": "structural"}

    def parse(self, completion, obs):
        return Decision()

    def commit(self, obs, decision, result):
        pass

    def postrun(self, trajectory, outcome):
        pass

    def config_dict(self):
        return {"own": 1}

    def fallback_policy(self):
        return "first-legal"


def test_a_contract_without_hook_sets_gets_their_defaults_and_keeps_its_own_hooks() -> None:
    contract = as_contract(Structural())
    assert contract.replies.fallback_policy() == "first-legal"
    assert contract.replies.reply_mode == "constrained"
    assert contract.replies.counterfactual_schema(OBS, []) == {
        "type": "object",
        "title": "structural",
    }
    assert contract.memory.store_hashes() == {} and contract.setup.sends_game_seed is True
    assert contract.config_dict() == {"own": 1} and contract.name == "structural"


def test_a_contract_with_every_set_is_taken_as_it_is() -> None:
    contract = Plain()
    assert as_contract(contract) is contract


def test_a_contract_missing_a_member_of_the_loop_is_refused_in_one_line() -> None:
    class Old:
        name = "old"

        def assemble(self, obs):
            return Prompt()

    with pytest.raises(ConfigError) as refused:
        as_contract(Old())
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("contract 'old' lacks reset, propose, reply_schema, parse, commit")
    assert all(member in message for member in REQUIRED_MEMBERS)


def test_each_hook_set_is_one_class() -> None:
    assert {"replies": ReplyHooks, "memory": MemoryHooks, "setup": SetupHooks} == HOOK_SETS
