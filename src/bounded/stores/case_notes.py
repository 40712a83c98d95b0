"""L4: case notes from earlier runs, keyed by category and key (not the `summary` contract).

Retrieval is by key, never by text similarity: two states that look alike can differ
strategically, so a note about a fight is shown when the same enemies are present,
a note about a route when the same act is being mapped, and so on. The keys a
decision asks for come from `keys_for`; the newest notes come first.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bounded.stores.situation import Situation, norm

COMBAT_KINDS = frozenset({"combat"})
"""Decision kinds whose notes are filed per enemy group."""

CATEGORY_OF_KIND: dict[str, str] = {
    "map": "route",
    "rest": "route",
    "card_reward": "build",
    "card_select": "build",
    "boss_relic": "build",
    "reward": "build",
    "shop": "build",
    "neow": "build",
    "event": "event",
}
"""Decision kind -> note category; kinds not listed use their own name."""


class CaseNote(BaseModel):
    """One case note."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    category: str
    """`combat`, `boss`, `route`, `build`, `event`, or a decision kind of another game."""
    key: str
    """What it is filed under within the category (enemy group, act, event name)."""
    text: str
    outcome: str = ""
    """How the run that wrote it ended (`victory`, `defeat`, ...)."""
    source_runs: list[str] = Field(default_factory=list)
    seq: int = 0
    """Write order within the store (newer is larger)."""

    def render(self) -> str:
        tail = f" ({self.outcome})" if self.outcome else ""
        return f"[{self.category}: {self.key}]{tail} {self.text}"


def fight_key(enemies: list[str]) -> str:
    """The key of a fight: its enemy names, normalised, sorted, each once."""
    return ", ".join(sorted({norm(e) for e in enemies}))


def keys_for(situation: Situation) -> list[tuple[str, str]]:
    """The (category, key) pairs a decision retrieves, most specific first."""
    if situation.kind in COMBAT_KINDS:
        category = "boss" if situation.boss else "combat"
        keys = [(category, norm(situation.encounter))] if situation.encounter else []
        if situation.enemies:
            keys.append((category, fight_key(situation.enemies)))
        keys += [(category, norm(e)) for e in sorted(set(situation.enemies))]
        return list(dict.fromkeys(keys)) or [(category, norm(situation.kind))]
    category = CATEGORY_OF_KIND.get(situation.kind, situation.kind)
    if category == "event" and situation.event:
        return [(category, norm(situation.event))]
    if situation.act is not None:
        return [(category, f"act {situation.act}")]
    return [(category, norm(situation.kind))]


class CaseNoteBook(BaseModel):
    """The L4 file: a game's case notes."""

    model_config = ConfigDict(extra="forbid")

    game: str = ""
    summaries: list[CaseNote] = Field(default_factory=list)

    def retrieve(self, situation: Situation) -> list[CaseNote]:
        """Notes filed under this decision's keys: most specific key first, newest first."""
        chosen: dict[str, CaseNote] = {}
        for category, key in keys_for(situation):
            hits = [s for s in self.summaries if s.category == category and s.key == key]
            for note in sorted(hits, key=lambda s: -s.seq):
                chosen.setdefault(note.id, note)
        return list(chosen.values())

    def next_seq(self) -> int:
        return max((s.seq for s in self.summaries), default=0) + 1

    def add(self, summary: CaseNote) -> None:
        self.summaries.append(summary)
