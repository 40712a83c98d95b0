"""The run as JSON state and as compact text for a model."""

from __future__ import annotations

from collections import Counter
from operator import attrgetter
from typing import Any

from bounded.envs.spire.combat import Combat
from bounded.envs.spire.core import UNPLAYABLE, X_COST, Card, Enemy
from bounded.envs.spire.game import FLOORS_PER_ACT, Run
from bounded.envs.spire.potions import POTIONS
from bounded.envs.spire.relics import RELICS

INTENT_WORDS = {
    "attack": "attack",
    "attack_block": "attack and block",
    "attack_debuff": "attack and debuff",
    "block": "block",
    "buff": "buff",
    "debuff": "debuff",
    "unknown": "unknown",
    "sleep": "nothing",
}


_by_name = attrgetter("name")


def _cards(cards: list[Card]) -> list[dict[str, Any]]:
    return [c.to_json() for c in cards]


def _deck_json(run: Run) -> list[dict[str, Any]]:
    """The deck as JSON, rebuilt only when the deck changed (the list is shared, read-only)."""
    deck = run.deck
    key = (tuple(deck), tuple(map(_by_name, deck)))  # the cards (by identity) and their names
    cached = run.deck_json_cache
    if cached is None or cached[0] != key:
        cached = (key, [c.to_json(c.d.base_cost(c.upgraded)) for c in run.deck])
        run.deck_json_cache = cached
    return cached[1]


def _relics_json(run: Run) -> list[dict[str, Any]]:
    key = (tuple(run.relics), tuple(run.relic_counters.items()))
    cached = run.relics_json_cache
    if cached is None or cached[0] != key:
        counters = run.relic_counters
        relics = [
            {
                "name": n,
                "rarity": RELICS[n].rarity,
                "text": RELICS[n].text,
                "counter": counters.get(n, 0),
            }
            for n in run.relics
        ]
        cached = run.relics_json_cache = (key, relics)
    return cached[1]


def _player(run: Run) -> dict[str, Any]:
    cb = run.combat
    return {
        "hp": run.hp,
        "max_hp": run.max_hp,
        "gold": run.gold,
        "energy": cb.player.energy if cb else run.max_energy,
        "max_energy": run.max_energy,
        "block": cb.player.block if cb else 0,
        "powers": dict(cb.player.powers) if cb else {},
        "deck": _deck_json(run),
        "relics": _relics_json(run),
        "potions": [
            {"slot": slot, "name": name, "text": POTIONS[name].text, "target": POTIONS[name].target}
            for slot, name in enumerate(run.potions)
            if name is not None
        ],
        "potion_slots": len(run.potions),
    }


def _map(run: Run) -> dict[str, Any]:
    pos = run.position
    return {
        "nodes": run.map_json,
        "position": None if pos is None else {"x": pos.x, "y": pos.y},
        "boss": " & ".join(run.act_boss),
    }


def _enemy(e: Enemy, cb: Combat) -> dict[str, Any]:
    return {
        "index": e.index,
        "name": e.name,
        "hp": e.hp,
        "max_hp": e.max_hp,
        "block": e.block,
        "alive": e.alive,
        "intent": cb.intent(e) if e.alive else None,
        "powers": dict(e.powers),
    }


def _combat(cb: Combat) -> dict[str, Any]:
    energy = cb.player.energy
    selectable = not cb.pending_discard
    hand = []
    for card in cb.hand:
        cost = cb.card_cost(card)  # what `cb.playable(card)` checks, without a second lookup
        playable = cost != UNPLAYABLE and (cost == X_COST or cost <= energy)
        hand.append(card.hand_json(cost, playable and selectable))
    enemies = [_enemy(e, cb) for e in cb.enemies]
    return {
        "turn": cb.turn,
        "encounter": list(cb.encounter),
        "hand": hand,
        "draw_pile": _cards(sorted(cb.draw_pile, key=_by_name)),
        "discard_pile": _cards(cb.discard_pile),
        "exhaust_pile": _cards(cb.exhaust_pile),
        "enemies": enemies,
        "incoming_damage": sum(
            e["intent"]["total"]
            for e in enemies
            if e["alive"] and not e["powers"].get("reborn_pending")
        ),
    }


def state_dict(run: Run, kind: str) -> dict[str, Any]:
    state: dict[str, Any] = {
        "kind": kind,
        "act": run.act,
        "floor": run.floor,
        "act_floor": run.act_floor,
        "room": run.room,
        "ascension": run.ascension,
        "bosses_beaten": run.bosses_beaten,
        "player": _player(run),
        "map": _map(run),
        "done": run.done,
    }
    if run.combat is not None:
        state["combat"] = _combat(run.combat)
    if kind == "neow":
        state["options"] = [
            {"id": f"neow:{i}", "label": label} for i, (label, _) in enumerate(run.neow_options)
        ]
    elif kind == "map":
        state["choices"] = [{"x": n.x, "y": n.y, "room": n.room} for n in run.map_choices()]
    elif kind == "card_select":
        if run.combat is not None and run.combat.pending_discard:
            state["select"] = {
                "purpose": "discard",
                "remaining": run.combat.pending_discard,
                "cards": _cards(run.combat.hand),
            }
        elif run.select is not None:
            state["select"] = {
                "purpose": run.select.purpose,
                "remaining": 1,
                "cards": _cards(run.select.cards),
            }
    elif kind == "card_reward":
        state["cards"] = _cards(run.card_offer)
    elif kind == "reward":
        state["rewards"] = [
            _reward_json(i, item) for i, item in enumerate(run.rewards) if not item.get("taken")
        ]
    elif kind == "shop" and run.shop is not None:
        shop = run.shop
        state["shop"] = {
            "cards": [{**c.to_json(), "price": p} for c, p in shop.cards],
            "relics": [{"name": n, "text": RELICS[n].text, "price": p} for n, p in shop.relics],
            "potions": [{"name": n, "text": POTIONS[n].text, "price": p} for n, p in shop.potions],
            "remove_price": None if shop.removed else run.removal_price,
        }
    elif kind == "event" and run.event is not None:
        state["event"] = {
            "name": run.event.name,
            "text": run.event.text,
            "options": [
                {"id": f"option:{i}", "label": o.label, "enabled": o.enabled}
                for i, o in enumerate(run.event.options)
            ],
        }
    elif kind == "rest":
        state["rest"] = {"heal": min(run.rest_heal, run.max_hp - run.hp)}
    elif kind == "treasure":
        state["treasure"] = {"gold": run.treasure_gold}
    elif kind == "boss_relic":
        state["relics"] = [
            {"name": n, "rarity": "boss", "text": RELICS[n].text} for n in run.boss_relics
        ]
    elif kind == "game_over":
        state["victory"] = run.victory
    return state


def _reward_json(index: int, item: dict[str, Any]) -> dict[str, Any]:
    out = {
        "index": index,
        "type": item["type"],
        "gold": item.get("gold", 0),
        "name": item.get("name", ""),
    }
    if item["type"] == "potion":
        out["text"] = POTIONS[item["name"]].text
    elif item["type"] == "relic":
        out["text"] = RELICS[item["name"]].text
    elif item["type"] == "cards":
        out["text"] = ", ".join(c.name for c in item["cards"])
    return out


# --------------------------------------------------------------------------- text


def _powers_text(powers: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(powers.items())) or "none"


def _deck_summary(run: Run) -> str:
    cached = run.deck_json_cache
    key = cached[0] if cached is not None else None
    if run.deck_summary_cache is None or run.deck_summary_cache[0] != key:
        counts = Counter(c.name for c in run.deck)
        text = ", ".join(f"{n} x{k}" if k > 1 else n for n, k in sorted(counts.items()))
        run.deck_summary_cache = (key, text)
    return run.deck_summary_cache[1]


def _header(run: Run) -> str:
    """The header; `state_dict` has just refreshed the deck and relic caches it keys on.

    In a fight the deck list is left out: the fight shows the hand and the pile sizes,
    and a decision about the deck (a reward, the shop, a removal) shows the deck, so a
    fight's prompt does not grow with the deck over a run."""
    deck = run.deck_json_cache
    relics = run.relics_json_cache
    key = (
        run.act,
        run.act_floor,
        run.ascension,
        run.hp,
        run.max_hp,
        run.gold,
        run.max_energy,
        tuple(run.potions),
        None if deck is None else deck[0],
        None if relics is None else relics[0],
        run.combat is None,
    )
    cached = run.header_cache
    if cached is None or cached[0] != key:
        cached = run.header_cache = (key, _build_header(run))
    return cached[1]


def _build_header(run: Run) -> str:
    potions = ", ".join(p for p in run.potions if p) or "none"
    header = (
        f"Act {run.act}, floor {run.floor} (act floor {run.act_floor}/{FLOORS_PER_ACT}), "
        f"ascension {run.ascension}. "
        f"HP {run.hp}/{run.max_hp}, gold {run.gold}, energy per turn {run.max_energy}.\n"
        f"Relics: {', '.join(run.relics)}.\nPotions: {potions}."
    )
    if run.combat is not None:
        return f"{header}\nDeck: {len(run.deck)} cards."
    return f"{header}\nDeck ({len(run.deck)}): {_deck_summary(run)}."


def _combat_text(cb: Combat, state: dict[str, Any]) -> str:
    p = cb.player
    lines = [
        f"Combat turn {cb.turn}. Energy {p.energy}. Block {p.block}. "
        f"Powers: {_powers_text(p.powers)}.",
        "Enemies:",
    ]
    for e in state["enemies"]:
        if not e["alive"]:
            continue
        it = e["intent"]
        words = INTENT_WORDS[it["type"]]
        if it["damage"]:
            words += f" {it['damage']}" + (f"x{it['hits']}" if it["hits"] > 1 else "")
        lines.append(
            f"  [{e['index']}] {e['name']} HP {e['hp']}/{e['max_hp']} block {e['block']} "
            f"intent: {words} ({it['move']}); powers: {_powers_text(e['powers'])}"
        )
    lines.append(f"Incoming damage: {state['incoming_damage']}.")
    lines.append("Hand:")
    lines += [card.hand_line(cb.card_cost(card)) for card in cb.hand]
    lines.append(
        f"Draw pile {len(cb.draw_pile)}, discard pile {len(cb.discard_pile)}, "
        f"exhausted {len(cb.exhaust_pile)}."
    )
    if cb.pending_discard:
        lines.append(f"Choose {cb.pending_discard} card(s) to discard.")
    return "\n".join(lines)


def _map_text(run: Run) -> str:
    start = 0 if run.position is None else run.position.y + 1
    rows = run.map.rows
    lines = []
    for y in range(start, min(start + 4, max(1, len(rows)))):
        cells = [f"{n.x}:{n.room}->{','.join(map(str, sorted(n.edges)))}" for n in rows.get(y, ())]
        if cells:
            lines.append(f"  floor {(run.act - 1) * FLOORS_PER_ACT + y + 1}: " + "  ".join(cells))
    return (
        "Map ahead (column:room->next columns):\n"
        + "\n".join(lines)
        + f"\nBoss: {' & '.join(run.act_boss)}."
    )


def render_text(run: Run, kind: str, state: dict[str, Any]) -> str:
    """The observation as text; combat details are read from `state` (built once)."""
    parts = [_header(run)]
    if run.combat is not None:
        parts.append(_combat_text(run.combat, state["combat"]))
    if kind == "neow":
        parts.append("Choose an opening bonus.")
    elif kind == "map":
        parts.append(_map_text(run))
    elif kind == "card_select" and run.select is not None:
        parts.append(f"Choose a card to {run.select.purpose}.")
    elif kind == "card_reward":
        parts.append(
            "Card reward:\n"
            + "\n".join(
                f"  {c.name} ({c.d.type}, {c.d.rarity}): {c.d.describe(c.upgraded)}"
                for c in run.card_offer
            )
        )
    elif kind == "reward":
        parts.append(
            "Rewards:\n"
            + "\n".join(
                f"  {r['type']}: {r.get('gold') or r.get('name') or ''}"
                for r in run.rewards
                if not r.get("taken")
            )
        )
    elif kind == "shop" and run.shop is not None:
        shop = run.shop
        lines = ["Shop:"]
        lines += [
            f"  card {c.name} ({c.d.rarity}) {p}g: {c.d.describe(c.upgraded)}"
            for c, p in shop.cards
        ]
        lines += [f"  relic {n} {p}g: {RELICS[n].text}" for n, p in shop.relics]
        lines += [f"  potion {n} {p}g: {POTIONS[n].text}" for n, p in shop.potions]
        if not shop.removed:
            lines.append(f"  card removal {run.removal_price}g")
        parts.append("\n".join(lines))
    elif kind == "event" and run.event is not None:
        parts.append(f"Event: {run.event.name}. {run.event.text}")
    elif kind == "rest":
        parts.append("Rest site: rest to heal or smith to upgrade a card.")
    elif kind == "treasure":
        parts.append("A treasure chest.")
    elif kind == "boss_relic":
        parts.append(
            "Choose a boss relic:\n"
            + "\n".join(f"  {n}: {RELICS[n].text}" for n in run.boss_relics)
        )
    elif kind == "game_over":
        parts.append("Victory!" if run.victory else "You died.")
    return "\n\n".join(parts)
