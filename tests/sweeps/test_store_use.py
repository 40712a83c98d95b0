"""How a cell's contract uses the learned layers' store, as the contract declares it
(`store_layers`), a plugin's own layer included."""

from typing import Literal

from pydantic import BaseModel

from bounded.contracts import CONTRACTS, register_contract
from bounded.contracts.base import StoreLayers
from bounded.contracts.state import StateContract
from bounded.sweeps.store_use import StoreUse, store_use


class NotesSettings(BaseModel):
    notes: Literal["frozen", "writable"]


class KeepsNotes(StateContract):
    """A plugin contract that declares a store layer of its own: `notes`, read frozen."""

    @classmethod
    def store_layers(cls, settings: dict) -> StoreLayers:
        frozen = NotesSettings.model_validate(settings).notes == "frozen"
        return StoreLayers(
            reads=("notes",),
            writes=() if frozen else ("notes",),
            frozen=("notes",) if frozen else (),
            needs_store=frozen,
        )


def test_the_sweep_asks_a_contract_what_stores_it_reads_and_writes():
    register_contract("keeps-notes", KeepsNotes)
    try:
        use = store_use({"contract": "keeps-notes", "contract_config": {"notes": "frozen"}})
        assert use == StoreUse(
            "keeps-notes", typed=True, reads=("notes",), frozen=("notes",), needs_store=True
        )
        assert store_use({"contract": "keeps-notes", "contract_config": {"notes": "?"}}) is None
    finally:
        CONTRACTS._targets.pop("keeps-notes", None)
    assert store_use({"contract": "state"}) == StoreUse("state")
    typed = store_use({"contract": "typed", "contract_config": {"l4": {"mode": "frozen"}}})
    assert typed is not None and typed.frozen == ("L4",) and typed.needs_store
    assert store_use({"contract": "reflexion", "contract_config": {"mode": "writable"}}) == (
        StoreUse("reflexion", typed=True, reads=("reflections",), writes=("reflections",))
    )
