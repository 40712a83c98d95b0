"""The reply settings `[defaults]` and the command line give every contract reach only
those that declare them; any other contract is built without them, and one that asks for
what it does not do is refused in one line."""

import sys
from pathlib import Path

import pytest

from bounded.contracts import make_contract
from bounded.contracts._declared import declares
from bounded.contracts.base import ContractBase
from bounded.core import ConfigError

PLUGIN = Path(__file__).parents[1] / "data" / "echo-plugin"


@pytest.fixture(autouse=True)
def echo_plugin(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGIN))
    yield
    sys.modules.pop("echo_plugin", None)


class Keyworded(ContractBase):
    def __init__(self, **settings: object) -> None:
        self.settings = settings


def test_a_plugin_contract_without_reply_plays_under_a_shared_constrained_reply():
    contract = make_contract(
        "echo_plugin:EchoContract",
        {"greeting": "Hi.", "reply": "constrained", "reply_fallback": ["text"],
         "reasoning_chars": "model"},
    )  # fmt: skip
    assert contract.greeting == "Hi." and contract.reply_mode == "constrained"


def test_a_reply_it_cannot_play_or_a_cap_it_cannot_keep_is_refused_in_one_line():
    with pytest.raises(ConfigError) as refused:
        make_contract("echo_plugin:EchoContract", {"reply": "text"})
    assert str(refused.value) == (
        "contract 'echo_plugin:EchoContract' takes no reply setting and plays 'constrained': "
        "reply = 'text' cannot apply (declare reply in its constructor, docs/extending.md)"
    )
    with pytest.raises(ConfigError, match="reasoning_chars = 120 cannot apply"):
        make_contract("echo_plugin:EchoContract", {"reasoning_chars": 120})


def test_a_misspelt_setting_is_still_refused():
    with pytest.raises(ConfigError, match=r"bad settings for contract .*greting"):
        make_contract("echo_plugin:EchoContract", {"greting": "Hi."})


def test_contracts_that_declare_reply_still_receive_it():
    assert make_contract("state", {"reply": "json"}).reply_mode == "json"
    assert declares(Keyworded, "reply") and not declares(ContractBase, "reply")
    with pytest.raises(ConfigError, match="bad settings for contract 'state'"):
        make_contract("state", {"reply": "telepathy"})
