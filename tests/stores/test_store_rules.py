"""L3: filtered and full retrieval from a versioned rules book, and patches."""

import pytest

from bounded.core import ConfigError
from bounded.stores.rules import Rule, RulesBook, RulesPatch
from bounded.stores.situation import Situation

BOOK = RulesBook(
    game="spire",
    version="1",
    rules=[
        Rule(
            id="mechanic:energy", category="mechanic", name="Energy", text="3 a turn.", always=True
        ),
        Rule(id="card:strike", category="card", name="Strike", text="Deal 6 damage."),
        Rule(id="card:backspring", category="card", name="Backspring", text="Gain 7 Block."),
        Rule(id="enemy:cultist", category="enemy", name="Cultist", text="Gains Ritual."),
        Rule(id="keyword:ritual", category="keyword", name="Ritual", text="Gain Strength."),
        Rule(id="relic:anchor", category="relic", name="Anchor", text="Start with 10 Block."),
    ],
)


def test_filtered_returns_what_is_in_play_plus_core_mechanics():
    situation = Situation(
        kind="combat", enemies=["Cultist"], enemy_powers=["Ritual"], hand=["Strike+"]
    )
    ids = [r.id for r in BOOK.retrieve(situation, "filtered")]
    assert ids == ["mechanic:energy", "enemy:cultist", "keyword:ritual", "card:strike"]


def test_filtered_on_a_foreign_state_returns_only_core_mechanics():
    assert [r.id for r in BOOK.retrieve(Situation(kind="stream"))] == ["mechanic:energy"]


def test_full_returns_every_rule():
    assert len(BOOK.retrieve(Situation(kind="stream"), "full")) == len(BOOK.rules)


def test_a_patch_moves_the_book_to_the_next_version():
    patch = RulesPatch(
        game="spire",
        from_version="1",
        to_version="2",
        upsert=[
            Rule(id="card:strike", category="card", name="Strike", text="Deal 7 damage."),
            Rule(id="card:lunge", category="card", name="Lunge", text="Apply Vulnerable."),
        ],
        remove=["relic:anchor"],
    )
    new = BOOK.patched(patch)
    assert new.version == "2"
    texts = {r.id: r.text for r in new.rules}
    assert texts["card:strike"] == "Deal 7 damage."
    assert "card:lunge" in texts and "relic:anchor" not in texts
    assert BOOK.version == "1" and len(BOOK.rules) == 6


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (RulesPatch(game="craft", from_version="1", to_version="2"), "game"),
        (RulesPatch(game="spire", from_version="0", to_version="2"), "version"),
        (RulesPatch(game="spire", from_version="1", to_version="2", remove=["x"]), "unknown"),
    ],
)
def test_a_patch_for_another_book_is_refused(patch, message):
    with pytest.raises(ConfigError, match=message):
        BOOK.patched(patch)
