"""`bounded.envs.nethack.language` against the NLE language wrapper's compiled extension
(tests/data/balrog_golden/nethack/glyphs.json.gz; its episodes check the rest)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
from nle import nethack

from bounded.envs.nethack import language

GLYPHS = Path(__file__).parents[2] / "data" / "balrog_golden" / "nethack" / "glyphs.json.gz"


def test_positions_are_named_by_distance_then_direction() -> None:
    assert language.position(1, 0) == ("adjacent", "east")
    assert language.position(3, 1) == ("near", "eastnortheast")
    assert language.position(-1, -4) == ("near", "southsouthwest")
    assert language.position(-6, 6) == ("far", "northwest")
    assert language.position(0, -20) == ("very far", "south")


def test_plurals_follow_the_wrappers_rules() -> None:
    assert language.pluralize("jackal") == "jackals"
    assert language.pluralize("lich") == "lichs"
    assert language.pluralize("fox") == "foxes"
    assert language.pluralize("pair of boots") == "pair of boots"
    assert language.pluralize("ice") == "area of ice"
    assert language.pluralize("scroll labeled FOO") == "scrolls labeled FOO"


def test_a_message_is_the_top_line_or_the_rows_down_to_a_more() -> None:
    screen = np.full((24, 80), ord(" "), dtype=np.uint8)
    screen[0, :5] = np.frombuffer(b"Hello", dtype=np.uint8)
    assert language.text_message(screen) == "Hello"
    screen[1, :12] = np.frombuffer(b"World--More-", dtype=np.uint8)
    screen[1, 12] = ord("-")
    assert language.text_message(screen) == "Hello\nWorld--More--"
    screen[0, :5] = ord(" ")
    assert language.text_message(screen) == "\0\nWorld--More--"


def _arrays(glyph: int, places: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    glyphs = np.full((21, 79), nethack.GLYPH_CMAP_OFF + 19, dtype=np.int16)
    for x in places:
        glyphs[10, x] = glyph
    blstats = np.zeros(nethack.NLE_BLSTATS_SIZE, dtype=np.int64)
    blstats[0], blstats[1] = 40, 10
    return glyphs, blstats


def test_every_glyph_is_named_as_the_language_wrapper_names_it() -> None:
    with gzip.open(GLYPHS, "rt", encoding="utf-8") as handle:
        table = json.load(handle)
    cursor = np.array([11, 44], dtype=np.uint8)
    for glyph in range(nethack.MAX_GLYPH):
        glyphs, blstats = _arrays(glyph, (41,))
        assert language.text_glyphs(glyphs, blstats) == table["single_east"][glyph], glyph
        glyphs, blstats = _arrays(glyph, (43, 44))
        assert language.text_glyphs(glyphs, blstats) == table["double_near_east"][glyph], glyph
        assert language.text_cursor(glyphs, blstats, cursor) == table["cursor"][glyph], glyph
