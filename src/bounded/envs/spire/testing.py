"""Test helpers for content authors: training dummies and a combat set up by hand.

`Table("Strike").play()` plays one card against a 180-HP dummy that does nothing, so a
test can compare the outcome with the card's text.
"""

from __future__ import annotations

from bounded.envs.spire.combat import Combat
from bounded.envs.spire.core import Card, Enemy, Move
from bounded.envs.spire.enemies import ENEMIES, TRAINING_ENEMIES, cycle, enemy
from bounded.envs.spire.game import Run

DUMMY = "Training Dummy"
HITTER = "Training Hitter"

if DUMMY not in ENEMIES:
    enemy(DUMMY, (200, 200), [Move("Wait")], cycle("Wait"))
    enemy(HITTER, (200, 200), [Move("Hit", dmg=10)], cycle("Hit"))
    TRAINING_ENEMIES.update((DUMMY, HITTER))


class Table:
    """A hand-built combat: one card to play, a known draw pile, dummies as enemies."""

    def __init__(
        self,
        card: str | None = None,
        *,
        upgraded: bool = False,
        hand: tuple[str, ...] = (),
        draw: tuple[str, ...] = ("Defend",) * 10,
        enemies: tuple[str, ...] = (DUMMY,),
        energy: int = 3,
        relics: tuple[str, ...] = (),
    ) -> None:
        self.run = Run(seed=7)
        for name in relics:
            self.run.obtain_relic(name)
        self.cb = Combat(self.run, enemies, "normal")
        self.run.combat = self.cb
        self.run.phase = "combat"
        for e in self.cb.enemies:
            self.cb.choose_move(e)
        self.cb.player.energy = energy
        self.card: Card | None = self.run.new_card(card, upgraded) if card else None
        self.cb.hand = ([self.card] if self.card else []) + [self.run.new_card(k) for k in hand]
        self.cb.draw_pile = [self.run.new_card(k) for k in draw]

    @property
    def enemy(self) -> Enemy:
        return self.cb.enemies[0]

    def play(self, target: int | None = 0) -> None:
        assert self.card is not None
        enemy_target = (
            self.cb.enemies[target]
            if target is not None and self.card.d.target == "enemy"
            else None
        )
        self.cb.play(self.card, enemy_target)
