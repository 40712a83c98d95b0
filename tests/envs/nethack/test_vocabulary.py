"""Answers read from NetHack's questions and menus, and the vocabularies' keys."""

from __future__ import annotations

from bounded.envs.nethack.game import known_key
from bounded.envs.nethack.vocabulary import (
    BALROG_COMMANDS,
    CORE_COMMANDS,
    bracket_answers,
    menu_items,
    words_for,
)


def test_bracket_answers_expand_ranges_and_drop_help() -> None:
    assert bracket_answers("What do you want to eat? [fghi or ?*]") == ["f", "g", "h", "i", "*"]
    assert bracket_answers("What do you want to wield? [- a-c or ?*]") == ["-", "a", "b", "c", "*"]
    assert bracket_answers("Really attack the watchman? [yn] (n)") == []
    assert bracket_answers("Are you sure you want to pray? [yn]") == ["y", "n"]
    assert bracket_answers("No question here.") == []


def test_a_question_without_brackets_gets_yes_and_no() -> None:
    words = words_for("choice", "balrog", "Really attack? [yn] (n)", [], "")
    assert [w.id for w in words] == ["answer y", "answer n", "esc"]


def test_menu_items_and_pages() -> None:
    lines = ["   Comestibles", "   f - 3 food rations", "   g - an apple", "(1 of 2)"]
    assert menu_items(lines) == [("f", "3 food rations"), ("g", "an apple")]
    words = words_for("menu", "balrog", "", lines, "\n".join(lines))
    assert [w.id for w in words] == ["select f", "select g", "next page", "confirm", "esc"]


def test_every_word_sends_keys_nle_accepts_and_ids_are_unique() -> None:
    for vocabulary in (BALROG_COMMANDS, CORE_COMMANDS):
        ids = [w.id for w in vocabulary]
        assert len(ids) == len(set(ids))
        assert all(known_key(k) for w in vocabulary for k in w.keys)
    assert len(BALROG_COMMANDS) <= 60  # a prompt lists at most 60 legal actions
    assert len(CORE_COMMANDS) < len(BALROG_COMMANDS)


def test_menu_items_are_found_beside_the_map_and_once_selected() -> None:
    lines = ["|....|        What would you like to pick up?", "|..@.|        a + an apple"]
    lines.append("-----         b - a dagger")
    assert menu_items(lines) == [("a", "an apple"), ("b", "a dagger")]
