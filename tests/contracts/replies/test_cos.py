"""CoS's reading of a reply's decisions (`bounded.contracts.replies.cos`), against its
reference code.

The names each reply yields are what the reference's own `extract_actions_from_text`
returned on the same text (run outside bounded, at commit 5e9b425; the outputs are kept in
`data/cos_reference_readings.json`). The actions they are read as follow the reference's
`ActionExtractor`: the name upper-cased is the action of that name; any other name is read
as its nearest action (only near misses whose nearest action is unambiguous are pinned)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bounded.contracts.replies.cos import decision_names, nearest_legal, read_decisions
from bounded.contracts.replies.rules import parse_action_tags
from bounded.core import Action, Observation

DATA = Path(__file__).parents[1] / "data"
READINGS = json.loads((DATA / "cos_reference_readings.json").read_text())
CASES = READINGS["cases"]

LEGAL = [
    "TRAIN PROBE",
    "BUILD PYLON",
    "BUILD ASSIMILATOR",
    "BUILD GATEWAY",
    "CHRONOBOOST NEXUS",
    "EMPTY ACTION",
]
CRAFT = Observation(kind="macro", legal=[Action(id=name) for name in LEGAL], max_actions=1)

NO_SECTION = "reply has no Decisions: section"
NO_ITEM = "the Decisions: section holds no numbered decision (0: <ACTION NAME>)"
ANY = "(any legal action)"
"""A name far from every action: the reference reads it as its nearest action whatever the
distance (by sentence embeddings, which bounded does not run), so only that it is read as
some legal action, recorded as a near miss, is pinned."""

TP, BP, BA, BG, CN = LEGAL[:5]
EXPECTED: dict[str, tuple[list[str], list[str], str | None]] = {
    # case: (actions read, names read as a near miss, the parse problem)
    "issue-prose-then-dotted": ([], [], NO_ITEM),  # `1.` is no number of CoS's
    "issue-lower-case-dotted": ([], [], NO_ITEM),
    "issue-placeholder-then-inline": ([], [], NO_ITEM),  # tags with no number
    "issue-supply-then-inline": ([], [], NO_ITEM),
    "cos-format-after-prose": ([CN, BA, TP], [], None),  # not the prose's tags
    "lower-case-numbered": ([TP, BP], [], None),  # upper-cased: an exact name
    "no-brackets": ([TP, BP], [], None),
    "duplicates": ([TP, TP, BP], [], None),  # repeats kept
    "more-than-asked": ([TP, BP, BA, BG, CN], [], None),  # no limit
    "no-section": ([], [], NO_SECTION),
    "lower-case-heading": ([], [], NO_SECTION),  # `decisions:` is not the heading
    "markdown-heading": ([TP, BP], [], None),
    "fenced": ([TP, BP], [], None),
    "near-miss-plural": ([TP, BP], ["TRAIN PROBES", "BUILD PYLONS"], None),
    "trailing-explanation": ([TP, BP], [], None),  # the name ends at `>`
    "trailing-note-with-time": ([TP, BP], [], None),  # `03:14` has no space after `:`
    "numbered-step-in-note": ([TP, BP], [], None),  # `step 1: <...>` is an item too
    "heading-mentioned-twice": ([TP], [], None),  # from the first `Decisions:` on
    "no-space-after-colon": ([], [], NO_ITEM),
    "two-spaces-after-colon": ([TP], [" <TRAIN PROBE"], None),  # not trimmed: a near miss
    "empty-section": ([], [], NO_ITEM),
    "garbage-name": ([TP, ANY], ["5 of 15"], None),
    "action-prefix-v2-format": ([], [], NO_ITEM),  # v2's `Action: <...>` items
    "one-line-numbered": ([TP, BP], [], None),
}


def test_every_recorded_reply_has_an_expected_reading():
    assert set(EXPECTED) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_names_read_are_the_reference_extractors(case):
    recorded = CASES[case]
    names = decision_names(recorded["text"])
    assert (names or []) == recorded["action_extractor"]
    assert (names is None) == ("Decisions:" not in recorded["text"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_reply_is_read_as_the_reference_reads_it(case):
    actions, near, problem = EXPECTED[case]
    reading = read_decisions(CASES[case]["text"], CRAFT)
    read = [a.id for a in reading.actions]
    assert len(read) == len(actions)
    assert all(r == a or (a == ANY and r in LEGAL) for r, a in zip(read, actions, strict=True))
    assert [m["written"] for m in reading.near_misses] == near
    assert reading.problem == problem
    assert reading.invalid == [] and reading.errors == []


def test_a_near_miss_is_recorded_with_the_action_it_is_read_as():
    reading = read_decisions("Decisions:\n0: <CHRONOBOOST NEXSU>\n1: <build assimilators>", CRAFT)
    assert reading.near_misses == [
        {"written": "CHRONOBOOST NEXSU", "read_as": CN},
        {"written": "build assimilators", "read_as": BA},
    ]


def test_an_exact_name_is_never_remapped_and_no_legal_action_makes_a_name_invalid():
    assert nearest_legal("train probe", CRAFT).id == TP
    empty = Observation(kind="macro", legal=[])
    reading = read_decisions("Decisions:\n0: <TRAIN PROBE>", empty)
    assert reading.actions == [] and reading.invalid == ["TRAIN PROBE"]
    assert reading.problem == "no legal action to read a decision as"


def test_a_name_of_an_action_that_needs_args_is_an_error_not_a_crash():
    needs = Action(id="REPORT", schema={"type": "object", "required": ["n"]})
    obs = Observation(kind="macro", legal=[needs])
    reading = read_decisions("Decisions:\n0: <REPORT>", obs)
    assert reading.actions == [] and "bad args for 'REPORT'" in reading.errors[0]
    assert reading.problem == reading.errors[0]


@pytest.mark.parametrize(
    ("case", "actions"),
    [
        ("issue-prose-then-dotted", []),
        ("issue-lower-case-dotted", []),
        ("issue-placeholder-then-inline", []),
        ("issue-supply-then-inline", []),
    ],
)
def test_the_issues_four_replies_name_no_decision_and_no_invalid_action(case, actions):
    """The four replies of issue 51, read as CoS's extractor reads them: none has a decision
    CoS's rule reads (their items are numbered `1.` or not at all), so none names the prose's
    tags, and nothing in them is an invalid action (the reference queues its empty action)."""
    decision = parse_action_tags(CASES[case]["text"], CRAFT)
    assert [a.id for a in decision.actions] == actions
    assert decision.parse_error == NO_ITEM
    assert "invalid_actions" not in decision.extra


def test_the_rule_keeps_up_to_max_actions_and_counts_the_rest():
    obs = CRAFT.model_copy(update={"max_actions": 2})
    decision = parse_action_tags(CASES["more-than-asked"]["text"], obs)
    assert [a.id for a in decision.actions] == [TP, BP]
    assert decision.extra["decisions_dropped"] == 3
    assert decision.parse_error is None and decision.reasoning == ""


def test_the_prose_before_decisions_is_the_reasoning():
    decision = parse_action_tags(CASES["cos-format-after-prose"]["text"], CRAFT)
    assert decision.reasoning.startswith("Analysis: last step we did <BUILD PYLON>.")
    assert decision.reasoning.endswith("consider <BUILD GATEWAY> later.")


def test_only_the_decisions_kept_are_read_and_the_rest_are_counted():
    reading = read_decisions(CASES["more-than-asked"]["text"], CRAFT, keep=2)
    assert [a.id for a in reading.actions] == [TP, BP] and reading.dropped == 3
    assert read_decisions(CASES["more-than-asked"]["text"], CRAFT).dropped == 0


def test_a_huge_reply_is_read_in_bounded_time():
    text = "Decisions:\n" + "\n".join(f"{n}: <{'TRAIN PROBE ' * 5000}" for n in range(200))
    reading = read_decisions(text, CRAFT, keep=3)
    assert [a.id for a in reading.actions] == [TP] * 3 and reading.dropped == 197


REPORT = Action(
    id="report",
    schema={"type": "object", "properties": {"occupied": {"type": "integer"},
            "shipped": {"type": "integer"}}, "required": ["occupied", "shipped"]},
)  # fmt: skip
WAREHOUSE = Observation(kind="event", legal=[REPORT, Action(id="wait")])
ARGS = {"occupied": 1, "shipped": 0}


@pytest.mark.parametrize(
    ("text", "action", "args", "near", "error"),
    [
        # bounded's extension: an action taking arguments, its JSON object after its name
        ('Decisions:\n0: <report {"occupied": 1, "shipped": 0}>', "report", ARGS, [], None),
        ('Decisions:\n0: <REPORT {"occupied": 1, "shipped": 0}>', "report", ARGS, [], None),
        ('Decisions:\n0: report {"occupied": 1, "shipped": 0}', "report", ARGS, [], None),
        # the arguments checked against the action's schema
        ('Decisions:\n0: <report {"occupied": 1}>', None, None, [],
         "bad args for 'report': 'shipped' is a required property"),
        ("Decisions:\n0: <report>", None, None, [],
         "bad args for 'report': 'occupied' is a required property"),
        # anything else is read whole as the name, as the reference reads it
        ('Decisions:\n0: <wait {"occupied": 1}>', "wait", {}, ['wait {"occupied": 1}'], None),
        ("Decisions:\n0: <report {occupied: 1}>", None, None, [],
         "bad args for 'report': 'occupied' is a required property"),
    ],
)  # fmt: skip
def test_an_action_with_arguments_is_written_with_them_after_its_name(
    text, action, args, near, error
):
    """The reference's actions take none; bounded reads a JSON object after the exact name
    of an action that takes arguments as its arguments (docs/replies.md)."""
    reading = read_decisions(text, WAREHOUSE)
    assert [(a.id, a.args) for a in reading.actions] == ([(action, args)] if action else [])
    assert [m["written"] for m in reading.near_misses] == near
    assert reading.errors == ([error] if error else [])
