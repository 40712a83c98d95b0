"""Text events: each offers options with real trade-offs.

An event is a name, a text, and a function that builds its options for the current run.
An option is a label, a resolver (run -> None; it may open a card choice, a fight or a
card reward), and whether it is available now (e.g. enough gold or HP).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from bounded.envs.spire.core import RunView


@dataclass(frozen=True)
class EventOption:
    label: str
    resolve: Callable[[RunView], None]
    enabled: bool = True


@dataclass(frozen=True)
class EventDef:
    name: str
    text: str
    options: Callable[[RunView, random.Random], list[EventOption]]


EVENTS: dict[str, EventDef] = {}


def event(
    name: str, text: str
) -> Callable[[Callable[[RunView, random.Random], list[EventOption]]], None]:
    def register(builder: Callable[[RunView, random.Random], list[EventOption]]) -> None:
        EVENTS[name] = EventDef(name, text, builder)

    return register


def steps(*effects: Callable[[RunView], object]) -> Callable[[RunView], None]:
    """One resolver that applies several effects in order."""

    def resolve(run: RunView) -> None:
        for effect in effects:
            effect(run)

    return resolve


def leave() -> EventOption:
    return EventOption("Leave.", lambda run: None)


@event("Sunken Altar", "A stone altar, slick with old blood, hums with power.")
def _sunken_altar(run: RunView, rng: random.Random) -> list[EventOption]:
    cost = run.max_hp // 4
    return [
        EventOption(
            f"Offer blood: lose {cost} HP, obtain a random relic.",
            steps(
                lambda r: r.lose_hp(cost),
                lambda r: r.obtain_relic(r.random_relic(r.rngs["rewards"])),
            ),
            run.hp > cost,
        ),
        leave(),
    ]


@event("Wandering Cleric", "A cleric offers healing and purification, for a price.")
def _cleric(run: RunView, rng: random.Random) -> list[EventOption]:
    heal = run.max_hp // 4
    return [
        EventOption(
            f"Heal {heal} HP for 35 gold.",
            steps(lambda r: r.spend_gold(35), lambda r: r.heal(heal)),
            run.gold >= 35,
        ),
        EventOption(
            "Remove a card from your deck for 50 gold.",
            steps(lambda r: r.spend_gold(50), lambda r: r.open_select("remove")),
            run.gold >= 50 and bool(run.removable_cards()),
        ),
        leave(),
    ]


@event("Cleansing Spring", "Clear water bubbles from a crack in the rock.")
def _spring(run: RunView, rng: random.Random) -> list[EventOption]:
    curses = [c for c in run.deck if c.d.type == "curse" and c.d.removable]
    return [
        EventOption(
            f"Bathe: remove all removable curses ({len(curses)}).",
            lambda r: r.remove_cards([c for c in r.deck if c.d.type == "curse" and c.d.removable]),
            bool(curses),
        ),
        EventOption("Drink: heal 10 HP.", lambda r: r.heal(10)),
        leave(),
    ]


@event("Gambler's Den", "A grinning croupier shuffles a deck of bone cards.")
def _gamble(run: RunView, rng: random.Random) -> list[EventOption]:
    def bet(r: RunView) -> None:
        r.spend_gold(50)
        if r.rngs["events"].random() < 0.5:
            r.gain_gold(100)

    return [EventOption("Bet 50 gold on a coin flip: win 100.", bet, run.gold >= 50), leave()]


@event("Cursed Tome", "A book bound in scaly leather whispers your name.")
def _tome(run: RunView, rng: random.Random) -> list[EventOption]:
    def read(r: RunView) -> None:
        r.add_card("Doubt")
        r.offer_cards(r.card_choices(r.rngs["rewards"], rarity="rare"))

    return [EventOption("Read it: choose a rare card, gain the curse Doubt.", read), leave()]


@event("Forge Spirit", "A spirit of the forge offers to temper one of your cards.")
def _forge(run: RunView, rng: random.Random) -> list[EventOption]:
    def train(r: RunView) -> None:
        r.lose_hp(7)
        r.upgrade_random(r.rngs["events"], 2)

    return [
        EventOption(
            "Temper: upgrade a card.",
            lambda r: r.open_select("upgrade"),
            bool(run.upgradable_cards()),
        ),
        EventOption("Hammer blindly: lose 7 HP, upgrade 2 random cards.", train, run.hp > 7),
        leave(),
    ]


@event("Mirror Pool", "Your reflection in the pool moves a moment before you do.")
def _mirror(run: RunView, rng: random.Random) -> list[EventOption]:
    return [
        EventOption("Reach in: duplicate a card.", lambda r: r.open_select("duplicate")),
        leave(),
    ]


@event("Shifting Sands", "The ground shifts and the cards in your pack shift with it.")
def _sands(run: RunView, rng: random.Random) -> list[EventOption]:
    return [
        EventOption(
            "Let it take one: transform a card.",
            lambda r: r.open_select("transform"),
            bool(run.removable_cards()),
        ),
        leave(),
    ]


@event("Golden Statue", "A golden idol sits on a pedestal. The ceiling looks fragile.")
def _statue(run: RunView, rng: random.Random) -> list[EventOption]:
    cost = run.max_hp // 4
    return [
        EventOption(
            f"Take the idol (Gilded Idol) and outrun the boulder: lose {cost} HP.",
            steps(lambda r: r.obtain_relic("Gilded Idol"), lambda r: r.lose_hp(cost)),
            run.hp > cost and not run.has_relic("Gilded Idol"),
        ),
        leave(),
    ]


@event("Bandit Toll", "Two masked figures block the road: 'Your gold or your blood.'")
def _toll(run: RunView, rng: random.Random) -> list[EventOption]:
    toll = min(run.gold, 60)
    return [
        EventOption(f"Pay {toll} gold.", lambda r: r.spend_gold(toll)),
        EventOption(
            "Fight them (a hard fight; they carry a relic).",
            lambda r: r.start_combat(("Pickpocket", "Mugger"), "elite", relic_reward=True),
        ),
    ]


@event(
    "Dead Adventurer", "A fallen adventurer's pack lies half open. Something large sleeps nearby."
)
def _adventurer(run: RunView, rng: random.Random) -> list[EventOption]:
    def search(r: RunView) -> None:
        if r.rngs["events"].random() < 0.5:
            r.gain_gold(70)
        else:
            r.start_combat(("Brute Nob",), "elite", relic_reward=True)

    return [
        EventOption("Search the pack: 50% 70 gold, 50% an elite fight (with its relic).", search),
        leave(),
    ]


@event("Mushroom Ring", "Fat, pulsing mushrooms ring a clearing.")
def _mushrooms(run: RunView, rng: random.Random) -> list[EventOption]:
    heal = run.max_hp // 4
    return [
        EventOption(
            "Stomp: fight the spore beasts (a relic as reward).",
            lambda r: r.start_combat(
                ("Spore Beast", "Spore Beast", "Spore Beast"), "normal", relic_reward=True
            ),
        ),
        EventOption(
            f"Eat: heal {heal} HP, gain the curse Injury.",
            steps(lambda r: r.heal(heal), lambda r: r.add_card("Injury")),
        ),
    ]


@event("Beggar", "A beggar in rags says he can lift burdens, for a coin or seventy-five.")
def _beggar(run: RunView, rng: random.Random) -> list[EventOption]:
    return [
        EventOption(
            "Give 75 gold: remove a card.",
            steps(lambda r: r.spend_gold(75), lambda r: r.open_select("remove")),
            run.gold >= 75 and bool(run.removable_cards()),
        ),
        leave(),
    ]


@event("Alchemist", "An alchemist offers samples: 'Only a little blood for the reagents.'")
def _alchemist(run: RunView, rng: random.Random) -> list[EventOption]:
    def buy(r: RunView) -> None:
        r.lose_hp(6)
        for _ in range(2):
            r.obtain_random_potion(r.rngs["rewards"])

    return [
        EventOption(
            "Lose 6 HP: obtain 2 random potions.",
            buy,
            run.hp > 6 and not run.has_relic("Sealed Urn"),
        ),
        leave(),
    ]


@event("Buried Cache", "Fresh earth and a shovel. Someone buried something here, or someone.")
def _cache(run: RunView, rng: random.Random) -> list[EventOption]:
    def dig(r: RunView) -> None:
        if r.rngs["events"].random() < 0.5:
            r.obtain_relic(r.random_relic(r.rngs["rewards"]))
        else:
            r.lose_hp(min(12, r.hp - 1))

    return [EventOption("Dig: 50% a random relic, 50% lose 12 HP.", dig, run.hp > 12), leave()]


@event("Wounded Soldier", "A soldier asks you to carry his burden to the next camp.")
def _soldier(run: RunView, rng: random.Random) -> list[EventOption]:
    def carry(r: RunView) -> None:
        r.add_card("Pain")
        r.gain_gold(150)

    return [
        EventOption("Carry it: gain 150 gold and the curse Pain.", carry),
        EventOption(
            "Share your supplies: lose 5 max HP, obtain a random relic.",
            steps(
                lambda r: r.lose_max_hp(5),
                lambda r: r.obtain_relic(r.random_relic(r.rngs["rewards"])),
            ),
            run.max_hp > 10,
        ),
        leave(),
    ]


@event("Library of Whispers", "Endless shelves. One book seems to want to be read.")
def _library(run: RunView, rng: random.Random) -> list[EventOption]:
    heal = run.max_hp // 3
    return [
        EventOption(
            "Read: choose one of 3 cards.",
            lambda r: r.offer_cards(r.card_choices(r.rngs["rewards"], count=3)),
        ),
        EventOption(f"Sleep: heal {heal} HP.", lambda r: r.heal(heal)),
    ]
