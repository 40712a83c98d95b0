"""The generic situation reader: facts under their plain names, or where `StateKeys` say."""

from __future__ import annotations

from bounded.core import Observation
from bounded.stores.situation import StateKeys, read_situation, situation_of


def obs(state: dict, kind: str = "play") -> Observation:
    return Observation(kind=kind, state=state)


def test_plain_names_at_the_top_of_the_state():
    state = {
        "act": 2,
        "floor": 7,
        "hp": 12,
        "max_hp": 40,
        "room": "elite",
        "deck": ["Strike", {"name": "Bash"}],
        "enemies": [{"name": "Orc", "hp": 5, "powers": {"Rage": 1}}, {"name": "Dead", "hp": 0}],
        "hand": ["Strike"],
        "cards": [{"name": "Cleave"}],
        "rewards": [{"name": "Gold"}],
    }
    s = situation_of(obs(state))
    assert (s.act, s.floor, s.hp, s.max_hp, s.room) == (2, 7, 12, 40, "elite")
    assert s.deck == ["Strike", "Bash"] and s.hand == ["Strike"]
    assert s.enemies == ["Orc"] and s.enemy_powers == ["Rage"]
    assert s.offered == ["Cleave", "Gold"]
    assert s.hp_fraction == 12 / 40


def test_a_player_object_holds_the_players_facts():
    state = {"player": {"hp": 3, "max_hp": 9, "relics": [{"name": "Anchor"}], "powers": ["Calm"]}}
    s = situation_of(obs(state))
    assert (s.hp, s.max_hp, s.relics, s.player_powers) == (3, 9, ["Anchor"], ["Calm"])


def test_missing_facts_stay_empty():
    s = situation_of(obs({"event": "SHIP", "shelf": 3}, kind="stream"))
    assert s.kind == "stream" and s.event == "SHIP"
    assert s.hp is None and s.enemies == [] and s.offered == []


def test_a_game_names_its_own_keys_and_offer_reader():
    keys = StateKeys(enemies=("fight.foes",), hand=("fight.cards",))
    state = {"fight": {"foes": [{"name": "Rat"}], "cards": ["Jab"]}, "stock": ["Cheese"]}
    s = read_situation(obs(state), keys, offered=lambda st: list(st["stock"]))
    assert s.enemies == ["Rat"] and s.hand == ["Jab"] and s.offered == ["Cheese"]
    assert situation_of(obs(state)).enemies == []
