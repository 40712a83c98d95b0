"""Each relic, potion and event does what its text says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bounded.envs.spire.cards import CARDS
from bounded.envs.spire.events import EVENTS
from bounded.envs.spire.game import Run
from bounded.envs.spire.potions import POTIONS
from bounded.envs.spire.relics import RELICS
from bounded.envs.spire.testing import DUMMY, HITTER, Table

# --------------------------------------------------------------------------- relics


def _started(relic: str, **kw: object) -> Table:
    t = Table(relics=(relic,), **kw)  # type: ignore[arg-type]
    t.cb.draw_pile = [t.run.new_card("Defend") for _ in range(12)]
    t.cb.hand = []
    t.cb.start_player_turn(first=True)
    t.run.relic_hook("combat_start", t.cb)
    return t


def _play_n(t: Table, key: str, n: int) -> None:
    for _ in range(n):
        card = t.run.new_card(key)
        t.cb.hand.append(card)
        t.cb.player.energy = 5
        t.cb.play(card, t.enemy if card.d.target == "enemy" else None)


def _check_serpent_band() -> None:
    t = Table()
    t.cb.draw_pile = [t.run.new_card("Defend") for _ in range(12)]
    t.cb.start_player_turn(first=True)
    assert len(t.cb.hand) == 7


def _check_mooring_stone() -> None:
    assert _started("Mooring Stone").cb.player.block == 10


def _check_bronze_lantern() -> None:
    t = _started("Bronze Lantern")
    assert t.cb.player.powers.get("next_energy") == 1


def _check_blood_vial() -> None:
    run = Run(seed=1)
    run.hp = 50
    run.obtain_relic("Blood Vial")
    t = Table()
    t.run = run
    t.cb.run = run
    run.relic_hook("combat_start", t.cb)
    assert run.hp == 52


def _check_marble_pouch() -> None:
    assert _started("Marble Pouch").enemy.powers.get("vulnerable") == 1


def _check_smooth_pebble() -> None:
    assert _started("Smooth Pebble").cb.player.powers.get("dexterity") == 1


def _check_iron_talisman() -> None:
    assert _started("Iron Talisman").cb.player.powers.get("strength") == 1


def _check_wild_berry() -> None:
    run = Run(seed=1)
    run.obtain_relic("Wild Berry")
    assert run.max_hp == 77 and run.hp == 77


def _check_ore_heart() -> None:
    t = Table(relics=("Ore Heart",))
    t.run.relic_hook("turn_end", t.cb)
    assert t.cb.player.block == 6


def _check_sunflower() -> None:
    t = Table(relics=("Sunflower",))
    for _ in range(3):
        t.cb.player.energy = 0
        t.run.relic_hook("turn_start", t.cb)
    assert t.cb.player.energy == 1


def _check_whirling_chain() -> None:
    t = Table(relics=("Whirling Chain",))
    _play_n(t, "Nick", 10)
    assert t.cb.player.energy == 6


def _check_quill_tip() -> None:
    t = Table(relics=("Quill Tip",))
    _play_n(t, "Nick", 9)
    before = t.enemy.hp
    _play_n(t, "Nick", 1)
    assert before - t.enemy.hp == 12


def _check_dinner_token() -> None:
    run = Run(seed=1, ascension=0)
    run.hp = 20
    run.obtain_relic("Dinner Token")
    run.open_shop()
    assert run.hp == 35


def _check_down_pillow() -> None:
    run = Run(seed=1)
    base = run.rest_heal
    run.obtain_relic("Down Pillow")
    assert run.rest_heal == base + 15


def _third(relic: str, key: str) -> Table:
    t = Table(relics=(relic,))
    _play_n(t, key, 3)
    return t


def _check_paper_fan() -> None:
    assert _third("Paper Fan", "Nick").cb.player.block == 4


def _check_throwing_pin() -> None:
    assert _third("Throwing Pin", "Nick").cb.player.powers.get("dexterity") == 1


def _check_star_blade() -> None:
    assert _third("Star Blade", "Nick").cb.player.powers.get("strength") == 1


def _check_paper_knife() -> None:
    t = Table(relics=("Paper Knife",))
    before = t.enemy.hp
    _play_n(t, "Parry", 3)
    assert before - t.enemy.hp == 5


def _check_marrow_bone() -> None:
    t = Table(relics=("Marrow Bone",))
    t.run.hp = 30
    t.run.relic_hook("combat_end", t.cb)
    assert t.run.hp == 42


def _check_undying_plume() -> None:
    run = Run(seed=1)
    run.hp = 30
    run.obtain_relic("Undying Plume")
    run.relic_hook("rest_enter", run)
    assert run.hp == 30 + 3 * (len(run.deck) // 5)


def _check_living_clay() -> None:
    t = Table(relics=("Living Clay",))
    t.cb.damage_player(5)
    assert t.cb.player.powers.get("next_block") == 3


def _check_hidden_scroll() -> None:
    assert sum(c.key == "Shiv" for c in _started("Hidden Scroll").cb.hand) == 3


def _check_bent_funnel() -> None:
    assert _started("Bent Funnel").enemy.powers.get("poison") == 4


def _check_chime_bell() -> None:
    t = Table(relics=("Chime Bell",), hand=("Strike",))
    before = t.enemy.hp
    t.cb.discard(t.cb.hand[0])
    assert before - t.enemy.hp == 3


def _check_thick_wraps() -> None:
    t = Table(relics=("Thick Wraps",), hand=("Strike",))
    t.cb.discard(t.cb.hand[0])
    assert t.cb.player.block == 3


def _check_frozen_cream() -> None:
    t = Table(relics=("Frozen Cream",))
    t.cb.player.energy = 2
    t.cb.end_player_turn()
    assert t.cb.player.energy == 5


def _check_dense_rod() -> None:
    t = Table(relics=("Dense Rod",))
    hp = t.run.hp
    t.cb.damage_player(5)
    assert t.run.hp == hp - 4


def _check_shrine_gate() -> None:
    t = Table(relics=("Shrine Gate",))
    hp = t.run.hp
    t.cb.damage_player(5, attacker=t.enemy)
    assert t.run.hp == hp - 1


def _check_measuring_tool() -> None:
    t = Table(relics=("Measuring Tool",))
    t.cb.player.block = 20
    t.cb.start_player_turn()
    assert t.cb.player.block == 5


def _check_chemical_flask() -> None:
    t = Table("Skewer", relics=("Chemical Flask",), energy=1)
    before = t.enemy.hp
    t.play()
    assert before - t.enemy.hp == 21


def _check_coin_purse() -> None:
    run = Run(seed=1)
    run.obtain_relic("Coin Purse")
    run.relic_hook("floor", run)
    assert run.gold == 111


def _check_gilded_idol() -> None:
    t = Table(relics=("Gilded Idol",))
    t.run.open_rewards(t.cb)
    gold = next(r["gold"] for r in t.run.rewards if r["type"] == "gold")
    assert gold >= 12  # 10..20 plus a quarter


def _energy_relic(name: str) -> Callable[[], None]:
    def check() -> None:
        run = Run(seed=1)
        run.obtain_relic(name)
        assert run.max_energy == 4

    return check


def _check_spectral_husk_rule() -> None:
    run = Run(seed=1)
    run.obtain_relic("Spectral Husk")
    run.gain_gold(50)
    assert run.gold == 99


def _check_bitter_brew_rule() -> None:
    run = Run(seed=1)
    run.obtain_relic("Bitter Brew")
    assert all(c.id != "rest" for c in run._legal_rest())


def _check_fused_hammer_rule() -> None:
    run = Run(seed=1)
    run.obtain_relic("Fused Hammer")
    assert all(c.id != "upgrade" for c in run._legal_rest())


def _check_sage_stone_rule() -> None:
    t = Table(relics=("Sage Stone",))
    t.cb.spawn(DUMMY, "normal")
    assert t.cb.enemies[-1].powers.get("strength") == 1


def _check_sealed_urn_rule() -> None:
    run = Run(seed=1)
    run.obtain_relic("Sealed Urn")
    run.obtain_random_potion(run.rngs["rewards"])
    assert run.potions == [None, None, None]


def _check_coiled_band() -> None:
    run = Run(seed=1)
    run.obtain_relic("Coiled Band")
    assert "Serpent Band" not in run.relics
    t = Table(relics=("Coiled Band",))
    t.cb.draw_pile = [t.run.new_card("Defend") for _ in range(12)]
    t.cb.start_player_turn()
    assert len(t.cb.hand) == 6


def _check_still_pyramid() -> None:
    t = Table(relics=("Still Pyramid",), hand=("Strike", "Defend"), draw=())
    t.cb.end_player_turn()
    assert sorted(c.key for c in t.cb.hand) == ["Defend", "Strike"]


def _check_heart_locket() -> None:
    run = Run(seed=1)
    run.hp = 10
    run.obtain_relic("Heart Locket")
    assert run.max_hp == 90 and run.hp == 90


RELIC_CHECKS: dict[str, Callable[[], None]] = {
    "Serpent Band": _check_serpent_band,
    "Mooring Stone": _check_mooring_stone,
    "Bronze Lantern": _check_bronze_lantern,
    "Blood Vial": _check_blood_vial,
    "Marble Pouch": _check_marble_pouch,
    "Smooth Pebble": _check_smooth_pebble,
    "Iron Talisman": _check_iron_talisman,
    "Wild Berry": _check_wild_berry,
    "Ore Heart": _check_ore_heart,
    "Sunflower": _check_sunflower,
    "Whirling Chain": _check_whirling_chain,
    "Quill Tip": _check_quill_tip,
    "Dinner Token": _check_dinner_token,
    "Down Pillow": _check_down_pillow,
    "Paper Fan": _check_paper_fan,
    "Throwing Pin": _check_throwing_pin,
    "Star Blade": _check_star_blade,
    "Paper Knife": _check_paper_knife,
    "Marrow Bone": _check_marrow_bone,
    "Undying Plume": _check_undying_plume,
    "Living Clay": _check_living_clay,
    "Hidden Scroll": _check_hidden_scroll,
    "Bent Funnel": _check_bent_funnel,
    "Chime Bell": _check_chime_bell,
    "Thick Wraps": _check_thick_wraps,
    "Frozen Cream": _check_frozen_cream,
    "Dense Rod": _check_dense_rod,
    "Shrine Gate": _check_shrine_gate,
    "Measuring Tool": _check_measuring_tool,
    "Chemical Flask": _check_chemical_flask,
    "Coin Purse": _check_coin_purse,
    "Gilded Idol": _check_gilded_idol,
    "Spectral Husk": _check_spectral_husk_rule,
    "Bitter Brew": _check_bitter_brew_rule,
    "Fused Hammer": _check_fused_hammer_rule,
    "Sage Stone": _check_sage_stone_rule,
    "Sealed Urn": _check_sealed_urn_rule,
    "Coiled Band": _check_coiled_band,
    "Still Pyramid": _check_still_pyramid,
    "Heart Locket": _check_heart_locket,
}


def test_every_relic_has_a_check() -> None:
    assert sorted(RELICS) == sorted(RELIC_CHECKS)
    assert len(RELICS) >= 35


@pytest.mark.parametrize("name", sorted(RELIC_CHECKS))
def test_relic_does_what_its_text_says(name: str) -> None:
    RELIC_CHECKS[name]()


@pytest.mark.parametrize(
    "name", ["Spectral Husk", "Bitter Brew", "Fused Hammer", "Sage Stone", "Sealed Urn"]
)
def test_energy_relics_add_one_energy(name: str) -> None:
    _energy_relic(name)()


# --------------------------------------------------------------------------- potions

POTION_CHECKS: dict[str, Callable[[Table], bool]] = {
    "Fire Potion": lambda t: t.enemy.max_hp - t.enemy.hp == 20,
    "Block Potion": lambda t: t.cb.player.block == 12,
    "Strength Potion": lambda t: t.cb.player.powers.get("strength") == 2,
    "Dexterity Potion": lambda t: t.cb.player.powers.get("dexterity") == 2,
    "Energy Potion": lambda t: t.cb.player.energy == 5,
    "Swift Potion": lambda t: len(t.cb.hand) == 3,
    "Poison Potion": lambda t: t.enemy.powers.get("poison") == 6,
    "Weak Potion": lambda t: t.enemy.powers.get("weak") == 3,
    "Fear Potion": lambda t: t.enemy.powers.get("vulnerable") == 3,
    "Explosive Potion": lambda t: all(e.max_hp - e.hp == 10 for e in t.cb.enemies),
    "Blade Potion": lambda t: [(c.key, c.upgraded) for c in t.cb.hand] == [("Shiv", True)] * 3,
    "Healing Potion": lambda t: t.run.hp == 40 + t.run.max_hp // 5,
    "Miasma Potion": lambda t: all(e.powers.get("poison") == 4 for e in t.cb.enemies),
    "Steel Potion": lambda t: t.cb.player.powers == {"thorns": 3, "artifact": 1},
}


def test_every_potion_has_a_check() -> None:
    assert sorted(POTIONS) == sorted(POTION_CHECKS) and len(POTIONS) >= 12


@pytest.mark.parametrize("name", sorted(POTION_CHECKS))
def test_potion_does_what_its_text_says(name: str) -> None:
    t = Table(enemies=(DUMMY, DUMMY))
    t.run.hp = 40
    t.run.potions[1] = name
    target = t.enemy if POTIONS[name].target == "enemy" else None
    t.cb.use_potion(1, target)
    assert t.run.potions[1] is None
    assert POTION_CHECKS[name](t)


def test_potions_are_offered_as_actions_and_used_from_the_env() -> None:
    t = Table(enemies=(HITTER,))
    t.run.potions[0] = "Fire Potion"
    ids = [c.id for c in t.run.legal()]
    assert "potion:0:Fire Potion@0" in ids
    t.run.act_on("potion:0:Fire Potion@0")
    assert t.enemy.max_hp - t.enemy.hp == 20 and t.run.potions[0] is None


# --------------------------------------------------------------------------- events


def _event_run(name: str, *, gold: int = 200, hp: int = 60) -> Run:
    run = Run(seed=3)
    run.to_map()
    run.gold = gold
    run.hp = hp
    d = EVENTS[name]
    from bounded.envs.spire.game import EventState

    run.event = EventState(name, d.text, d.options(run, run.rngs["events"]))
    run.phase = "event"
    run._legal = None
    return run


def _choose(run: Run, index: int) -> None:
    run.act_on(f"option:{index}")


EVENT_CHECKS: dict[str, Callable[[], None]] = {}


def event_check(name: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def register(fn: Callable[[], None]) -> Callable[[], None]:
        EVENT_CHECKS[name] = fn
        return fn

    return register


@event_check("Sunken Altar")
def _altar() -> None:
    run = _event_run("Sunken Altar")
    relics = len(run.relics)
    _choose(run, 0)
    assert run.hp == 60 - run.max_hp // 4 and len(run.relics) == relics + 1


@event_check("Wandering Cleric")
def _cleric() -> None:
    run = _event_run("Wandering Cleric", hp=30)
    _choose(run, 0)
    assert run.gold == 165 and run.hp == 30 + run.max_hp // 4
    run = _event_run("Wandering Cleric")
    _choose(run, 1)
    assert run.phase == "card_select" and run.gold == 150
    size = len(run.deck)
    run.act_on(run.legal()[0].id)
    assert len(run.deck) == size - 1 and run.phase == "map"


@event_check("Cleansing Spring")
def _spring() -> None:
    run = _event_run("Cleansing Spring")
    run.add_card("Doubt")
    run.event = None
    run = _event_run("Cleansing Spring")
    run.add_card("Injury")
    from bounded.envs.spire.game import EventState

    d = EVENTS["Cleansing Spring"]
    run.event = EventState(d.name, d.text, d.options(run, run.rngs["events"]))
    run._legal = None
    _choose(run, 0)
    assert not any(c.d.type == "curse" for c in run.deck)


@event_check("Gambler's Den")
def _den() -> None:
    outcomes = set()
    for seed in range(12):
        run = _event_run("Gambler's Den")
        run.rngs["events"].seed(seed)
        _choose(run, 0)
        outcomes.add(run.gold)
    assert outcomes == {150, 250}


@event_check("Cursed Tome")
def _tome() -> None:
    run = _event_run("Cursed Tome")
    _choose(run, 0)
    assert any(c.key == "Doubt" for c in run.deck)
    assert run.phase == "card_reward" and all(c.d.rarity == "rare" for c in run.card_offer)


@event_check("Forge Spirit")
def _forge() -> None:
    run = _event_run("Forge Spirit")
    _choose(run, 1)
    assert run.hp == 53 and sum(c.upgraded for c in run.deck) == 2


@event_check("Mirror Pool")
def _mirror() -> None:
    run = _event_run("Mirror Pool")
    _choose(run, 0)
    size = len(run.deck)
    run.act_on(run.legal()[0].id)
    assert len(run.deck) == size + 1


@event_check("Shifting Sands")
def _sands() -> None:
    run = _event_run("Shifting Sands")
    _choose(run, 0)
    first = run.select.cards[0]  # type: ignore[union-attr]
    run.act_on(f"select:{first.name}#{first.uid}")
    assert first not in run.deck and len(run.deck) == 12
    assert CARDS[run.deck[-1].key].rarity in ("common", "uncommon", "rare")


@event_check("Golden Statue")
def _statue() -> None:
    run = _event_run("Golden Statue")
    _choose(run, 0)
    assert run.has_relic("Gilded Idol") and run.hp == 60 - run.max_hp // 4


@event_check("Bandit Toll")
def _toll() -> None:
    run = _event_run("Bandit Toll")
    _choose(run, 0)
    assert run.gold == 140
    run = _event_run("Bandit Toll")
    _choose(run, 1)
    assert (
        run.phase == "combat"
        and run.combat is not None
        and run.combat.encounter == ("Pickpocket", "Mugger")
    )


@event_check("Dead Adventurer")
def _adventurer() -> None:
    phases = set()
    for seed in range(12):
        run = _event_run("Dead Adventurer")
        run.rngs["events"].seed(seed)
        _choose(run, 0)
        phases.add(run.phase)
        if run.phase == "map":
            assert run.gold == 270
    assert phases == {"map", "combat"}


@event_check("Mushroom Ring")
def _mushrooms() -> None:
    run = _event_run("Mushroom Ring", hp=20)
    _choose(run, 1)
    assert run.hp == 20 + run.max_hp // 4 and any(c.key == "Injury" for c in run.deck)


@event_check("Beggar")
def _beggar() -> None:
    run = _event_run("Beggar")
    _choose(run, 0)
    assert run.gold == 125 and run.phase == "card_select"


@event_check("Alchemist")
def _alchemist() -> None:
    run = _event_run("Alchemist")
    _choose(run, 0)
    assert run.hp == 54 and sum(p is not None for p in run.potions) == 2


@event_check("Buried Cache")
def _cache() -> None:
    results = set()
    for seed in range(12):
        run = _event_run("Buried Cache")
        run.rngs["events"].seed(seed)
        relics = len(run.relics)
        _choose(run, 0)
        results.add((len(run.relics) - relics, 60 - run.hp))
    assert results == {(1, 0), (0, 12)}


@event_check("Wounded Soldier")
def _soldier() -> None:
    run = _event_run("Wounded Soldier")
    _choose(run, 0)
    assert run.gold == 350 and any(c.key == "Pain" for c in run.deck)


@event_check("Library of Whispers")
def _library() -> None:
    run = _event_run("Library of Whispers", hp=10)
    _choose(run, 1)
    assert run.hp == 10 + run.max_hp // 3


def test_every_event_has_a_check() -> None:
    assert sorted(EVENTS) == sorted(EVENT_CHECKS) and len(EVENTS) >= 15


@pytest.mark.parametrize("name", sorted(EVENT_CHECKS))
def test_event_does_what_its_text_says(name: str) -> None:
    EVENT_CHECKS[name]()


def test_event_options_that_cost_too_much_are_not_offered() -> None:
    run = _event_run("Beggar", gold=10)
    assert [c.id for c in run.legal()] == ["option:1"]
