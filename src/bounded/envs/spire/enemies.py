"""Enemies, their scripted move patterns, and the encounters of each act.

A move is data (damage, hits, block, effects); its intent is derived from that data,
so what the player sees is what the enemy does. An AI is a function of the enemy's
move history and a seeded stream, never of the player's hidden cards. The records
(`Move`, `EnemyDef`, one `Enemy` in a fight) are in `core`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bounded.envs.spire.core import AI, Enemy, EnemyDef, Move

ENEMIES: dict[str, EnemyDef] = {}


def enemy(
    name: str, hp: tuple[int, int], moves: list[Move], ai: AI, tier: str = "normal", **powers: int
) -> None:
    ENEMIES[name] = EnemyDef(name, hp, {m.name: m for m in moves}, ai, dict(powers), tier)


TRAINING_ENEMIES: set[str] = set()
"""Enemies registered by test helpers (`bounded.envs.spire.testing`): never in a game."""


def game_enemies() -> dict[str, EnemyDef]:
    """The enemies of the game itself, without test helpers' training dummies."""
    return {name: d for name, d in ENEMIES.items() if name not in TRAINING_ENEMIES}


# --------------------------------------------------------------------------- AI helpers


def cycle(*names: str) -> AI:
    return lambda e, rng: names[len(e.history) % len(names)]


def opening(first: str, then: AI) -> AI:
    return lambda e, rng: first if not e.history else then(e, rng)


def weighted(*options: tuple[str, int], max_repeat: int = 2) -> AI:
    """Random by weight, never the same move more than `max_repeat` times in a row."""

    def choose(e: Enemy, rng: random.Random) -> str:
        recent = e.history[-max_repeat:]
        allowed = [
            (name, w)
            for name, w in options
            if not (len(recent) == max_repeat and all(m == name for m in recent))
        ]
        total = sum(w for _, w in allowed)
        roll = rng.random() * total
        for name, w in allowed:
            roll -= w
            if roll < 0:
                return name
        return allowed[-1][0]

    return choose


def split_when_half(then: AI) -> AI:
    """Slimes: once at half HP or less, the next move is always Split."""
    return lambda e, rng: "Split" if e.hp * 2 <= e.max_hp and e.hp > 0 else then(e, rng)


def strong(move: str, every: int, then: AI) -> AI:
    """Every `every` turns (1-based), use `move`."""
    return lambda e, rng: move if (len(e.history) + 1) % every == 0 else then(e, rng)


# --------------------------------------------------------------------------- act 1

enemy(
    "Cultist",
    (48, 54),
    [Move("Incantation", effects=(("buff", "ritual", 3),)), Move("Dark Strike", dmg=6)],
    opening("Incantation", cycle("Dark Strike")),
)
enemy(
    "Maw Worm",
    (40, 44),
    [
        Move("Chomp", dmg=11),
        Move("Thrash", dmg=7, block=5),
        Move("Bellow", block=6, effects=(("buff", "strength", 3),)),
    ],
    opening("Chomp", weighted(("Chomp", 25), ("Thrash", 30), ("Bellow", 45), max_repeat=1)),
)
enemy(
    "Red Tick",
    (10, 15),
    [Move("Bite", dmg=6), Move("Grow", effects=(("buff", "strength", 3),))],
    weighted(("Bite", 75), ("Grow", 25)),
    curl_up=5,
)
enemy(
    "Green Tick",
    (11, 17),
    [Move("Bite", dmg=6), Move("Spit Web", effects=(("debuff", "weak", 2),))],
    weighted(("Bite", 75), ("Spit Web", 25)),
    curl_up=5,
)
enemy(
    "Acid Blob S",
    (8, 12),
    [Move("Tackle", dmg=3), Move("Lick", effects=(("debuff", "weak", 1),))],
    cycle("Lick", "Tackle"),
)
enemy("Spike Blob S", (10, 14), [Move("Tackle", dmg=5)], cycle("Tackle"))
enemy(
    "Acid Blob M",
    (28, 32),
    [
        Move("Corrosive Spit", dmg=7, effects=(("status", "Slimed", 1, "discard"),)),
        Move("Tackle", dmg=10),
        Move("Lick", effects=(("debuff", "weak", 1),)),
    ],
    weighted(("Corrosive Spit", 30), ("Tackle", 40), ("Lick", 30)),
)
enemy(
    "Spike Blob M",
    (28, 32),
    [
        Move("Flame Tackle", dmg=8, effects=(("status", "Slimed", 1, "discard"),)),
        Move("Lick", effects=(("debuff", "frail", 1),)),
    ],
    weighted(("Flame Tackle", 70), ("Lick", 30)),
)
enemy(
    "Acid Blob L",
    (65, 69),
    [
        Move("Corrosive Spit", dmg=11, effects=(("status", "Slimed", 2, "discard"),)),
        Move("Tackle", dmg=16),
        Move("Lick", effects=(("debuff", "weak", 2),)),
        Move("Split", effects=(("split", "Acid Blob M"),)),
    ],
    split_when_half(weighted(("Corrosive Spit", 30), ("Tackle", 40), ("Lick", 30))),
)
enemy(
    "Spike Blob L",
    (64, 70),
    [
        Move("Flame Tackle", dmg=16, effects=(("status", "Slimed", 2, "discard"),)),
        Move("Lick", effects=(("debuff", "frail", 2),)),
        Move("Split", effects=(("split", "Spike Blob M"),)),
    ],
    split_when_half(weighted(("Flame Tackle", 70), ("Lick", 30))),
)
enemy("Mad Gremlin", (20, 24), [Move("Scratch", dmg=4)], cycle("Scratch"), angry=1)
enemy(
    "Sneaky Gremlin",
    (10, 14),
    [Move("Puncture", dmg=9)],
    cycle("Puncture"),
)
enemy(
    "Fat Gremlin",
    (13, 17),
    [Move("Smash", dmg=4, effects=(("debuff", "weak", 1),))],
    cycle("Smash"),
)
enemy(
    "Shield Gremlin",
    (12, 15),
    [Move("Protect", effects=(("block_all", 7),)), Move("Shield Bash", dmg=6)],
    cycle("Protect", "Protect", "Shield Bash"),
)
enemy(
    "Gremlin Wizard",
    (21, 25),
    [Move("Charging", effects=(("buff", "strength", 0),)), Move("Ultimate Blast", dmg=25)],
    cycle("Charging", "Charging", "Ultimate Blast"),
)
enemy(
    "Pickpocket",
    (44, 48),
    [
        Move("Mug", dmg=10, effects=(("steal", 15),)),
        Move("Smoke Bomb", block=6),
        Move("Escape", effects=(("escape",),)),
    ],
    cycle("Mug", "Mug", "Smoke Bomb", "Escape"),
)
enemy(
    "Spore Beast",
    (22, 28),
    [Move("Bite", dmg=6), Move("Grow", effects=(("buff", "strength", 3),))],
    weighted(("Bite", 60), ("Grow", 40)),
    spore_cloud=2,
)
enemy(
    "Blue Raider",
    (46, 50),
    [Move("Stab", dmg=12), Move("Rake", dmg=7, effects=(("debuff", "weak", 1),))],
    weighted(("Stab", 60), ("Rake", 40)),
)
enemy(
    "Red Raider",
    (46, 50),
    [
        Move("Stab", dmg=13),
        Move("Scrape", dmg=8, effects=(("debuff", "vulnerable", 1),)),
    ],
    opening("Stab", weighted(("Stab", 50), ("Scrape", 50))),
)
enemy(
    "Brute Nob",
    (82, 86),
    [
        Move("Bellow", effects=(("buff", "enrage", 2),)),
        Move("Rush", dmg=14),
        Move("Skull Bash", dmg=6, effects=(("debuff", "vulnerable", 2),)),
    ],
    opening("Bellow", weighted(("Rush", 67), ("Skull Bash", 33))),
    tier="elite",
)
enemy(
    "Sleeping Sentinel",
    (109, 111),
    [
        Move("Sleep"),
        Move("Attack", dmg=18),
        Move("Siphon Soul", effects=(("debuff", "strength", -1), ("debuff", "dexterity", -1))),
    ],
    lambda e, rng: (
        "Sleep"
        if e.powers.get("asleep", 0) > 0
        else ("Siphon Soul" if e.awake_turns % 3 == 2 else "Attack")
    ),
    tier="elite",
    asleep=3,
    metallicize=8,
)
enemy(
    "Sentry",
    (38, 42),
    [Move("Bolt", dmg=9), Move("Beam", effects=(("status", "Dazed", 2, "discard"),))],
    lambda e, rng: ("Bolt", "Beam")[(len(e.history) + e.index) % 2],
    tier="elite",
    artifact=1,
)
enemy(
    "Ooze King",
    (140, 140),
    [
        Move("Goop Spray", effects=(("status", "Slimed", 3, "discard"),)),
        Move("Preparing"),
        Move("Slam", dmg=35),
        Move("Split", effects=(("split", "Acid Blob L", "Spike Blob L"),)),
    ],
    split_when_half(cycle("Goop Spray", "Preparing", "Slam")),
    tier="boss",
)
enemy(
    "Bulwark Golem",
    (240, 240),
    [
        Move("Charge Up", block=9),
        Move("Fierce Bash", dmg=32),
        Move("Vent Steam", effects=(("debuff", "weak", 2), ("debuff", "vulnerable", 2))),
        Move("Whirlwind", dmg=5, hits=4),
        Move("Defensive Mode", block=20, effects=(("buff", "thorns", 3),)),
        Move("Roll Attack", dmg=9),
        Move("Twin Slam", dmg=8, hits=2),
    ],
    lambda e, rng: (
        ("Defensive Mode", "Roll Attack", "Twin Slam")[e.mode_turns % 3]
        if e.powers.get("defensive", 0)
        else ("Charge Up", "Fierce Bash", "Vent Steam", "Whirlwind")[e.mode_turns % 4]
    ),
    tier="boss",
    mode_shift=30,
)
enemy(
    "Ember Wraith",
    (250, 250),
    [
        Move("Activate"),
        Move("Divider", dmg=1, hits=6),
        Move("Sear", dmg=6, effects=(("status", "Burn", 1, "discard"),)),
        Move("Tackle", dmg=5, hits=2),
        Move("Inflame", block=12, effects=(("buff", "strength", 2),)),
        Move("Inferno", dmg=2, hits=6, effects=(("status", "Burn", 3, "discard"),)),
    ],
    lambda e, rng: (
        "Activate"
        if not e.history
        else (
            "Divider"
            if len(e.history) == 1
            else ("Sear", "Tackle", "Sear", "Inflame", "Tackle", "Sear", "Inferno")[
                (len(e.history) - 2) % 7
            ]
        )
    ),
    tier="boss",
)

# --------------------------------------------------------------------------- act 2

enemy(
    "Zealot",
    (95, 99),
    [
        Move("Poke", dmg=5, hits=2),
        Move("Zap", dmg=18),
        Move("Drain", effects=(("debuff", "weak", 3), ("buff", "strength", 3))),
        Move("Debilitate", dmg=10, effects=(("debuff", "vulnerable", 2),)),
    ],
    opening("Poke", weighted(("Zap", 35), ("Drain", 25), ("Debilitate", 40), max_repeat=1)),
)
enemy(
    "Crow",
    (25, 31),
    [
        Move("Peck", dmg=1, hits=5),
        Move("Swoop", dmg=12),
        Move("Caw", effects=(("buff", "strength", 1),)),
    ],
    opening("Caw", weighted(("Peck", 50), ("Swoop", 20), ("Caw", 30))),
)
enemy(
    "Shell Crawler",
    (68, 72),
    [
        Move("Double Strike", dmg=6, hits=2),
        Move("Suck", dmg=10, effects=(("heal_self", 10),)),
        Move("Fell", dmg=18, effects=(("debuff", "frail", 2),)),
    ],
    opening("Fell", weighted(("Double Strike", 50), ("Suck", 50))),
    plated_armor=14,
)
enemy(
    "Mugger",
    (48, 52),
    [
        Move("Mug", dmg=11, effects=(("steal", 15),)),
        Move("Lunge", dmg=16),
        Move("Escape", effects=(("escape",),)),
    ],
    cycle("Mug", "Mug", "Lunge", "Escape"),
)
enemy(
    "Thorn Vine",
    (75, 79),
    [
        Move("Chomp", dmg=7, hits=3),
        Move("Enfeebling Spores", effects=(("debuff", "weak", 2), ("debuff", "frail", 2))),
    ],
    weighted(("Chomp", 65), ("Enfeebling Spores", 35), max_repeat=1),
    malleable=3,
)
enemy(
    "Gazer",
    (114, 120),
    [
        Move("Glare", effects=(("debuff", "weak", 2), ("debuff", "frail", 2))),
        Move("Tail Whip", dmg=8, effects=(("debuff", "vulnerable", 2),)),
        Move("Bite", dmg=15),
    ],
    opening("Glare", weighted(("Tail Whip", 40), ("Bite", 60))),
)
enemy(
    "Legionnaire",
    (76, 80),
    [
        Move("Slash", dmg=12),
        Move("Fury", dmg=6, hits=3),
        Move("Defend", effects=(("block_all", 15),)),
    ],
    weighted(("Slash", 40), ("Fury", 40), ("Defend", 20)),
)
enemy(
    "Medic",
    (48, 56),
    [
        Move("Heal", effects=(("heal_all", 16),)),
        Move("Attack", dmg=8, effects=(("debuff", "frail", 2),)),
        Move("Buff", effects=(("buff_all", "strength", 2),)),
    ],
    opening("Attack", weighted(("Heal", 30), ("Attack", 40), ("Buff", 30), max_repeat=1)),
)
enemy(
    "Goblin Chief",
    (140, 148),
    [
        Move("Rally", effects=(("summon", "Mad Gremlin", 1), ("summon", "Sneaky Gremlin", 1))),
        Move("Encourage", effects=(("buff_all", "strength", 3), ("block_all", 6))),
        Move("Stab", dmg=6, hits=3),
    ],
    lambda e, rng: (
        "Rally"
        if e.allies_alive < 2 and (not e.history or e.history[-1] != "Rally")
        else ("Encourage" if len(e.history) % 2 == 1 else "Stab")
    ),
    tier="elite",
)
enemy(
    "Tome of Knives",
    (160, 164),
    [Move("Multi-Stab", dmg=6, hits=2), Move("Big Stab", dmg=21)],
    weighted(("Multi-Stab", 85), ("Big Stab", 15)),
    tier="elite",
    stab_growth=1,
)
enemy(
    "Taskmaster",
    (54, 60),
    [Move("Scouring Whip", dmg=7, effects=(("status", "Wound", 1, "discard"),))],
    cycle("Scouring Whip"),
    tier="elite",
)
enemy(
    "Champion",
    (420, 420),
    [
        Move("Heavy Slash", dmg=16),
        Move("Defensive Stance", block=15, effects=(("buff", "metallicize", 5),)),
        Move("Face Slap", dmg=12, effects=(("debuff", "frail", 2), ("debuff", "vulnerable", 2))),
        Move("Taunt", effects=(("debuff", "weak", 2), ("debuff", "vulnerable", 2))),
        Move("Gloat", effects=(("buff", "strength", 2),)),
        Move("Anger", effects=(("buff", "strength", 6),)),
        Move("Execute", dmg=10, hits=2),
    ],
    lambda e, rng: (
        "Anger"
        if e.hp * 2 <= e.max_hp and "Anger" not in e.history
        else (
            "Execute"
            if "Anger" in e.history and e.history[-1] != "Execute"
            else ("Heavy Slash", "Defensive Stance", "Face Slap", "Gloat", "Taunt")[
                len(e.history) % 5
            ]
        )
    ),
    tier="boss",
)
enemy(
    "Bronze Orb",
    (52, 58),
    [Move("Beam", dmg=8), Move("Support", effects=(("block_all", 12),))],
    cycle("Support", "Beam"),
    tier="minion",
)
enemy(
    "Clockwork Titan",
    (300, 300),
    [
        Move("Spawn Orbs", effects=(("summon", "Bronze Orb", 2),)),
        Move("Flail", dmg=7, hits=2),
        Move("Boost", block=9, effects=(("buff", "strength", 3),)),
        Move("Hyper Beam", dmg=45),
        Move("Stunned"),
    ],
    lambda e, rng: (
        "Spawn Orbs"
        if not e.history
        else ("Flail", "Boost", "Flail", "Boost", "Hyper Beam", "Stunned")[(len(e.history) - 1) % 6]
    ),
    tier="boss",
    artifact=3,
)
enemy(
    "Torch Head",
    (38, 40),
    [Move("Tackle", dmg=7)],
    cycle("Tackle"),
    tier="minion",
)
enemy(
    "Hoarder",
    (282, 282),
    [
        Move("Spawn", effects=(("summon", "Torch Head", 2),)),
        Move("Fireball", dmg=18),
        Move("Buff", block=15, effects=(("buff_all", "strength", 3),)),
        Move(
            "Mega Debuff",
            effects=(("debuff", "weak", 3), ("debuff", "vulnerable", 3), ("debuff", "frail", 3)),
        ),
    ],
    lambda e, rng: (
        "Spawn"
        if not e.history or (e.allies_alive == 0 and e.history[-1] != "Spawn")
        else (
            "Mega Debuff"
            if len(e.history) == 3
            else ("Fireball", "Buff", "Fireball")[len(e.history) % 3]
        )
    ),
    tier="boss",
)

# --------------------------------------------------------------------------- act 3

enemy(
    "Shade",
    (48, 56),
    [Move("Chomp", dmg=8, hits=2), Move("Harden", block=12), Move("Nip", dmg=9)],
    lambda e, rng: (
        ("Harden", "Nip")[e.index % 2]
        if not e.history
        else ("Chomp", "Nip", "Harden")[(len(e.history) + e.index) % 3]
    ),
)
enemy(
    "Orb Walker",
    (90, 96),
    [
        Move("Laser", dmg=10, effects=(("status", "Burn", 1, "discard"),)),
        Move("Claw", dmg=15),
    ],
    weighted(("Laser", 60), ("Claw", 40)),
    ritual=1,
)
enemy(
    "Spiker",
    (42, 56),
    [Move("Cut", dmg=7), Move("Spike", effects=(("buff", "thorns", 2),))],
    weighted(("Cut", 50), ("Spike", 50), max_repeat=1),
    thorns=2,
)
enemy(
    "Repulsor",
    (29, 35),
    [Move("Bash", dmg=11), Move("Repulse", effects=(("status", "Dazed", 2, "draw"),))],
    weighted(("Bash", 20), ("Repulse", 80)),
)
enemy(
    "Exploder",
    (30, 30),
    [Move("Slam", dmg=11), Move("Explode", dmg=25, effects=(("die",),))],
    cycle("Slam", "Slam", "Explode"),
)
enemy(
    "Spire Vine",
    (170, 170),
    [
        Move("Quick Tackle", dmg=16),
        Move("Constrict", effects=(("debuff", "constricted", 10),)),
        Move("Smash", dmg=22),
    ],
    opening("Constrict", weighted(("Quick Tackle", 50), ("Smash", 50))),
)
enemy(
    "Maw",
    (300, 300),
    [
        Move("Roar", effects=(("debuff", "weak", 3), ("debuff", "frail", 3))),
        Move("Slam", dmg=25),
        Move("Drool", effects=(("buff", "strength", 3),)),
        Move("Nom", dmg=5, hits=3),
    ],
    opening("Roar", cycle("Slam", "Nom", "Drool")),
)
enemy(
    "Writhing Mass",
    (160, 160),
    [
        Move("Big Hit", dmg=32),
        Move("Multi Strike", dmg=7, hits=3),
        Move("Attack Block", dmg=15, block=15),
        Move("Wither", dmg=10, effects=(("debuff", "weak", 2), ("debuff", "vulnerable", 2))),
    ],
    weighted(
        ("Big Hit", 10), ("Multi Strike", 30), ("Attack Block", 30), ("Wither", 30), max_repeat=1
    ),
    reactive=1,
)
enemy(
    "Colossal Head",
    (500, 500),
    [
        Move("Glare", effects=(("debuff", "weak", 1),)),
        Move("Count", dmg=13),
        Move("It Is Time", dmg=30),
    ],
    lambda e, rng: "It Is Time" if len(e.history) >= 4 else ("Glare", "Count")[len(e.history) % 2],
    tier="elite",
    time_ramp=5,
)
enemy(
    "Nemesis",
    (185, 185),
    [
        Move("Triple Attack", dmg=6, hits=3),
        Move("Burn", effects=(("status", "Burn", 3, "discard"),)),
        Move("Scythe", dmg=45),
    ],
    weighted(("Triple Attack", 40), ("Burn", 30), ("Scythe", 30), max_repeat=1),
    tier="elite",
    intangible_cycle=1,
)
enemy(
    "Dagger",
    (20, 25),
    [
        Move("Stab", dmg=9, effects=(("status", "Wound", 1, "discard"),)),
        Move("Explode", dmg=25, effects=(("die",),)),
    ],
    cycle("Stab", "Explode"),
    tier="minion",
)
enemy(
    "Serpent Caller",
    (180, 190),
    [
        Move("Summon Daggers", effects=(("summon", "Dagger", 2),)),
        Move("Snake Strike", dmg=13, hits=2, effects=(("debuff", "weak", 1),)),
        Move("Big Bite", dmg=30),
    ],
    lambda e, rng: (
        "Summon Daggers"
        if e.allies_alive < 2 and (not e.history or e.history[-1] != "Summon Daggers")
        else ("Snake Strike", "Big Bite")[len(e.history) % 2]
    ),
    tier="elite",
)
enemy(
    "Awakened Seraph",
    (300, 300),
    [
        Move("Slash", dmg=20),
        Move("Soul Strike", dmg=6, hits=4),
        Move("Rebirth", effects=(("revive",),)),
        Move("Dark Echo", dmg=40),
        Move("Sludge", dmg=18, effects=(("status", "Wound", 1, "draw"),)),
        Move("Tackle", dmg=10, hits=3),
    ],
    lambda e, rng: (
        "Rebirth"
        if e.powers.get("reborn_pending", 0)
        else (
            ("Dark Echo", "Sludge", "Tackle", "Sludge")[e.phase_turns % 4]
            if e.powers.get("phase_two", 0)
            else weighted(("Slash", 75), ("Soul Strike", 25), max_repeat=2)(e, rng)
        )
    ),
    tier="boss",
    curiosity=1,
    revive=1,
)
enemy(
    "Chronophage",
    (400, 400),
    [
        Move("Reverberate", dmg=7, hits=3),
        Move("Head Slam", dmg=26, effects=(("debuff", "frail", 1),)),
        Move("Ripple", block=20, effects=(("debuff", "vulnerable", 1), ("debuff", "weak", 1))),
        Move("Haste", effects=(("heal_half",),)),
    ],
    lambda e, rng: (
        "Haste"
        if e.hp * 2 < e.max_hp and "Haste" not in e.history
        else weighted(("Reverberate", 45), ("Head Slam", 35), ("Ripple", 20), max_repeat=1)(e, rng)
    ),
    tier="boss",
    time_warp=12,
)
enemy(
    "Sun Pillar",
    (220, 220),
    [Move("Circle of Power", effects=(("buff_all", "strength", 3),)), Move("Beam", dmg=10, hits=2)],
    cycle("Circle of Power", "Beam"),
    tier="boss",
    artifact=2,
)
enemy(
    "Moon Pillar",
    (220, 220),
    [
        Move("Square of Protection", effects=(("block_all", 16),)),
        Move("Beam", dmg=10, hits=2, effects=(("status", "Dazed", 2, "discard"),)),
    ],
    cycle("Beam", "Square of Protection"),
    tier="boss",
    artifact=2,
)

# --------------------------------------------------------------------------- final boss

enemy(
    "The Core",
    (420, 420),
    [
        Move(
            "Debilitate",
            effects=(
                ("debuff", "vulnerable", 2),
                ("debuff", "weak", 2),
                ("debuff", "frail", 2),
                ("status", "Burn", 2, "draw"),
            ),
        ),
        Move("Blood Shots", dmg=2, hits=10),
        Move("Echo", dmg=40),
        Move("Rally", effects=(("buff", "strength", 2), ("buff", "beat_of_death", 1))),
    ],
    lambda e, rng: (
        "Debilitate"
        if not e.history
        else (
            "Rally"
            if len(e.history) % 3 == 0
            else ("Blood Shots" if (len(e.history) // 3 + len(e.history)) % 2 else "Echo")
        )
    ),
    tier="boss",
    beat_of_death=1,
    invincible=120,
)


# --------------------------------------------------------------------------- encounters

Encounter = tuple[str, ...]


@dataclass(frozen=True)
class ActEncounters:
    weak: list[Encounter]
    strong: list[Encounter]
    elites: list[Encounter]
    bosses: list[Encounter]


ACTS: dict[int, ActEncounters] = {
    1: ActEncounters(
        weak=[
            ("Cultist",),
            ("Maw Worm",),
            ("Red Tick", "Green Tick"),
            ("Acid Blob S", "Spike Blob M"),
        ],
        strong=[
            ("Mad Gremlin", "Sneaky Gremlin", "Fat Gremlin", "Gremlin Wizard"),
            ("Acid Blob L",),
            ("Spike Blob L",),
            ("Pickpocket",),
            ("Spore Beast", "Spore Beast"),
            ("Blue Raider",),
            ("Red Raider",),
            ("Red Tick", "Green Tick", "Red Tick"),
        ],
        elites=[("Brute Nob",), ("Sleeping Sentinel",), ("Sentry", "Sentry", "Sentry")],
        bosses=[("Ooze King",), ("Bulwark Golem",), ("Ember Wraith",)],
    ),
    2: ActEncounters(
        weak=[
            ("Zealot",),
            ("Crow", "Crow", "Crow"),
            ("Shell Crawler",),
            ("Cultist", "Cultist"),
        ],
        strong=[
            ("Thorn Vine",),
            ("Gazer",),
            ("Legionnaire", "Medic"),
            ("Cultist", "Cultist", "Cultist"),
            ("Zealot", "Crow"),
            ("Pickpocket", "Mugger"),
            ("Shell Crawler", "Spore Beast"),
            ("Shield Gremlin", "Mad Gremlin", "Sneaky Gremlin", "Fat Gremlin"),
        ],
        elites=[
            ("Goblin Chief", "Mad Gremlin", "Shield Gremlin"),
            ("Tome of Knives",),
            ("Blue Raider", "Taskmaster", "Red Raider"),
        ],
        bosses=[("Champion",), ("Clockwork Titan",), ("Hoarder",)],
    ),
    3: ActEncounters(
        weak=[
            ("Shade", "Shade", "Shade"),
            ("Orb Walker",),
            ("Spiker", "Repulsor", "Exploder"),
            ("Maw Worm", "Maw Worm"),
        ],
        strong=[
            ("Spire Vine",),
            ("Maw",),
            ("Writhing Mass",),
            ("Spiker", "Exploder", "Repulsor", "Spiker"),
            ("Shade", "Orb Walker"),
            ("Maw Worm", "Maw Worm", "Maw Worm"),
            ("Gazer", "Cultist"),
            ("Legionnaire", "Medic", "Spiker"),
        ],
        elites=[("Colossal Head",), ("Nemesis",), ("Dagger", "Serpent Caller", "Dagger")],
        bosses=[("Awakened Seraph",), ("Chronophage",), ("Sun Pillar", "Moon Pillar")],
    ),
}
FINAL_BOSS: Encounter = ("The Core",)
