"""Each contract family reads its paper's reply format in `text` mode, from recorded
examples (a valid reply, a malformed one, one naming an illegal action), and does what the
method says with it: AgenticSTS's decision tag (typed: reasoning required inside it, the
last usable of several tags), SKILL.state's reasoning and JSON block (state: the object
that carries `state_patch`/`action`; a malformed reply is a no-op with its parse error),
CoS's numbered `<ACTION NAME>` decisions (summary, and episodic's exploration; the rule's
own table: test_cos.py), BALROG's naive, cot and robust extraction (the game's
default action and a note naming it in the next prompt)."""

from __future__ import annotations

import json

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.episodic import EpisodicContract
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.replies.rules import (
    BALROG_NAIVE_NOTE,
    ROBUST_COT_MISSING,
    balrog_candidate,
    last_json_object,
    parse_balrog,
    parse_decision_tag,
    parse_json_block,
    parse_reply,
)
from bounded.core import INVALID_KEY, Action, Completion, Observation
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.protocols import ANY_JSON_OBJECT
from bounded.runner import run_episode
from bounded.testing import episode

ARGS = {"occupied": 0, "shipped": 0}
BABYAI = Observation(
    kind="test",
    text="You see a wall 2 steps forward.",
    legal=[Action(id="turn left"), Action(id="turn right"), Action(id="go forward")],
)


def play(tmp_path, env, contract, replies, **config):
    model = ScriptedModel(replies)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(env, make_contract(contract, config), model, seed=1, archive=archive)
        return run, archive.decisions(run.run_id), model


# -- typed: AgenticSTS's decision tag (Appendix E.1) --------------------------------------

TAGGED = (
    "Nothing is stored yet, so both counts are zero.\n<decision>"
    + json.dumps({"reasoning": "empty shelves", "action": {"id": "report", "args": ARGS}})
    + "</decision>"
)


def test_typed_reads_the_json_inside_its_decision_tag(tmp_path):
    _run, decisions, model = play(
        tmp_path, make("warehouse", horizon=3), "typed", [TAGGED, "I cannot decide.",
        '<decision>{"reasoning": "x", "action": {"id": "ship"}}</decision>'], reply="text",
    )  # fmt: skip
    assert [call["constraint"] for call in model.calls] == [None, None, None]
    assert "<decision>" in model.calls[0]["messages"][-1]["content"]
    valid, malformed, illegal = decisions
    assert valid.actions[0].args == ARGS and valid.reasoning == "empty shelves"
    assert not valid.fallback and valid.parse_error is None
    assert malformed.fallback and malformed.parse_error == "reply holds no <decision> tag"
    assert illegal.fallback and "'ship' is not legal" in illegal.parse_error
    assert illegal.info["invalid_actions"] == ["ship"] and "invalid_actions" not in valid.info


def test_a_decision_tag_left_open_runs_to_the_end_and_prose_is_the_reasoning():
    text = 'Turn first. <decision>{"action": {"id": "turn left"}}'
    decision, _ = parse_decision_tag(text, BABYAI)
    assert decision.actions[0].id == "turn left" and decision.reasoning == "Turn first."


def tagged(action: str, reasoning: str | None = "the wall") -> str:
    reply: dict[str, object] = {"action": {"id": action}}
    if reasoning is not None:
        reply = {"reasoning": reasoning, **reply}
    return f"<decision>{json.dumps(reply)}</decision>"


EXAMPLE_NOTE = "\nNote: a reply looks like <decision>{...}</decision>."
MISSING = "the decision's JSON has no reasoning, which the decision tag requires"


@pytest.mark.parametrize(
    ("text", "action", "error"),
    [
        # Appendix E.1: valid JSON in the tag, the reasoning inside it
        ("Wall ahead.\n" + tagged("turn left"), "turn left", None),
        ('<decision>{"action": {"id": "neow:2"}}</decision>', None, MISSING),
        (tagged("turn left", reasoning=None), None, MISSING),
        ("I reason out here.\n" + tagged("turn left", reasoning=None), None, MISSING),
        (tagged("turn left", reasoning=""), "turn left", None),  # present: the schema's rule
        ("<DECISION>" + tagged("go forward")[10:-11] + "</DECISION>", "go forward", None),
        ("<decision>\n```json\n" + tagged("turn right")[10:-11] + "\n```\n</decision>",
         "turn right", None),
        # several tags: the last usable one (a named choice, docs/replies.md)
        (tagged("turn left") + EXAMPLE_NOTE, "turn left", None),
        ("I will answer in a <decision> tag.\n" + tagged("go forward"), "go forward", None),
        (tagged("turn left") + "\nOn reflection:\n" + tagged("turn right"), "turn right", None),
        (tagged("turn left") + "\nOr without reasoning: " + tagged("go forward", None),
         "turn left", None),
        (tagged("fly") + EXAMPLE_NOTE, None, "action 'fly' is not legal now"),
        # malformed: recorded and survived
        ("I cannot decide.", None, "reply holds no <decision> tag"),
        ("<decision>turn left</decision>", None, "reply holds no JSON object"),
    ],
)  # fmt: skip
def test_the_decision_tag_rule(text, action, error):
    decision, _ = parse_decision_tag(text, BABYAI, reasoning_required=True)
    assert [a.id for a in decision.actions] == ([action] if action else [])
    assert decision.parse_error == error


def test_a_tag_without_reasoning_is_accepted_where_the_reply_asks_for_none():
    decision, _ = parse_decision_tag(tagged("turn left", reasoning=None), BABYAI)
    assert decision.actions[0].id == "turn left" and decision.parse_error is None


def test_several_tags_are_counted_and_an_illegal_answer_is_an_invalid_action():
    decision, _ = parse_decision_tag(tagged("fly") + EXAMPLE_NOTE, BABYAI, reasoning_required=True)
    assert decision.extra["decision_tags"] == 2 and decision.extra[INVALID_KEY] == ["fly"]


def test_typed_requires_the_reasoning_its_schema_asks_for(tmp_path):
    bare = f"<decision>{json.dumps({'action': {'id': 'report', 'args': ARGS}})}</decision>"
    _run, decisions, _ = play(
        tmp_path, make("warehouse", horizon=2), "typed", [bare, TAGGED + EXAMPLE_NOTE],
        reply="text",
    )  # fmt: skip
    missing, answered = decisions
    assert missing.fallback and missing.parse_error == MISSING
    assert not answered.fallback and answered.actions[0].args == ARGS


# -- state: SKILL.state's reasoning, then a JSON block ---------------------------------------

BLOCK = (
    "Event 1 stores a box on shelf 0.\n```json\n"
    + json.dumps({"state_patch": {"stored": 1}, "action": {"id": "report", "args": ARGS}})
    + "\n```"
)


def test_state_reads_reasoning_then_a_json_block_and_a_malformed_reply_is_a_no_op(tmp_path):
    run, decisions, _ = play(
        tmp_path, make("warehouse", horizon=3), "state",
        [BLOCK, "I would report zero and zero.",
         '{"state_patch": {}, "action": {"id": "store"}}'], reply="text",
    )  # fmt: skip
    valid, malformed, illegal = decisions
    assert valid.reasoning == "Event 1 stores a box on shelf 0."
    assert valid.state_patch == {"stored": 1} and valid.actions[0].args == ARGS
    assert [d.actions[0].id for d in (malformed, illegal)] == ["noop", "noop"]
    assert malformed.parse_error == NO_BLOCK and malformed.fallback
    assert illegal.info["invalid_actions"] == ["store"]
    assert run.outcome["score"] < 1  # the no-ops are counted wrong by the warehouse


def block(**reply: object) -> str:
    return f"```json\n{json.dumps(reply)}\n```"


ANSWER = {"state_patch": {"stored": 1}, "action": {"id": "turn left"}}
NO_BLOCK = "reply holds no JSON block (an object with state_patch, action or actions)"


@pytest.mark.parametrize(
    ("text", "action", "patch", "error"),
    [
        # the paper's form: reasoning, then the block carrying state_patch and action
        ("Turn.\n" + block(**ANSWER), "turn left", {"stored": 1}, None),
        (json.dumps(ANSWER), "turn left", {"stored": 1}, None),  # bare, no fence
        # a trailing object without state_patch/action is not the block (issue 51)
        ("Turn.\n" + block(**ANSWER) + '\nFinal counts: {"occupied": 1, "shipped": 0}',
         "turn left", {"stored": 1}, None),
        ('Before: {"occupied": 0}. ' + block(**ANSWER), "turn left", {"stored": 1}, None),
        # several blocks: the last that carries them
        (block(**ANSWER) + "\nCorrected:\n" + block(state_patch={}, action={"id": "go forward"}),
         "go forward", {}, None),
        ("```JSON\n" + json.dumps(ANSWER) + "\n```", "turn left", {"stored": 1}, None),
        (block(state_patch={"action": {"id": "x"}}, action={"id": "turn right"}),
         "turn right", {"action": {"id": "x"}}, None),  # an inner object is not a block
        # malformed: recorded and survived (a no-op for state)
        (block(state_patch={"stored": 2}), None, {"stored": 2}, "reply names no action"),
        ('Counts: {"occupied": 1, "shipped": 0}', None, None, NO_BLOCK),
        ("I would report zero.", None, None, NO_BLOCK),
        (block(**ANSWER)[:-10], None, None, NO_BLOCK),  # cut off inside the block
    ],
)  # fmt: skip
def test_the_json_block_rule(text, action, patch, error):
    decision, reply = parse_json_block(text, BABYAI)
    assert [a.id for a in decision.actions] == ([action] if action else [])
    assert reply.get("state_patch") == patch
    assert decision.parse_error == error


def test_the_block_is_the_last_object_that_carries_an_action_or_patch():
    text = 'Earlier I said {"a": 1}. Now: {"action": {"id": "b"}} and {"c": 2}.'
    assert last_json_object(text) == ({"action": {"id": "b"}}, text.index('{"action"'))
    assert last_json_object('{"a": 1} {"b": {"c": 2}}') is None
    assert last_json_object("no object {here") is None
    assert last_json_object("[" * 100 + '{"action": 1}') is None  # deeper than the limit


def test_a_json_block_reply_keeps_lone_surrogates_out():
    decision, _ = parse_json_block('why \ud800 {"action": {"id": "turn left"}}', BABYAI)
    assert decision.actions[0].id == "turn left" and decision.extra["surrogates_replaced"] == 1


# -- summary: CoS's numbered <ACTION NAME> decisions (the rule's table: test_cos.py) --


def test_summary_reads_the_numbered_decisions_after_decisions(tmp_path):
    reply = (
        "The goal is ahead, so <turn right> would be wrong.\nSuggestions: move.\n"
        "Decisions:\n0: <GO FORWARD>\n1: <turn lefts>\n2: <turn left>"
    )
    _run, decisions, model = play(
        tmp_path, make("babyai", level="goto", max_steps=3), "summary", [reply], reply="text",
    )  # fmt: skip
    assert model.calls[0]["constraint"] is None
    assert "0: <ACTION_TO_BE_EXECUTED_FIRST>" in model.calls[0]["messages"][0]["content"]
    first = decisions[0]
    assert first.actions[0].id == "go forward" and first.parse_error is None
    assert first.info["near_misses"] == [{"written": "turn lefts", "read_as": "turn left"}]
    assert "invalid_actions" not in first.info  # the prose's <turn right> is not read
    assert first.reasoning.startswith("The goal is ahead")
    assert first.info["decisions"] == ["go forward", "turn left", "turn left"]  # the queue
    assert decisions[1].actions[0].id == "turn left"


def test_summary_without_a_decisions_section_is_a_parse_error(tmp_path):
    _, decisions, _ = play(
        tmp_path, make("babyai", level="goto", max_steps=1), "summary", ["<go forward>"],
        reply="text",
    )  # fmt: skip
    assert decisions[0].fallback and decisions[0].parse_error == "reply has no Decisions: section"


def test_summary_in_text_writes_an_actions_arguments_after_its_name(tmp_path):
    """The warehouse's one action takes arguments, which CoS's rule cannot give: the prompt
    says how (only where an action takes some) and the reply's object is read as them."""
    reply = 'Nothing stored yet.\nDecisions:\n0: <report {"occupied": 0, "shipped": 0}>'
    run, decisions, model = play(
        tmp_path, make("warehouse", horizon=2), "summary", [reply, reply], reply="text", interval=1,
        decisions=1,
    )  # fmt: skip
    shown = model.calls[0]["messages"][-1]["content"]
    assert shown.endswith(
        "An action with args is written with them as a JSON object after its name, like "
        '<report {"occupied": 0, "shipped": 0}>.'
    )
    assert [(d.actions[0].id, d.actions[0].args, d.fallback) for d in decisions] == [
        ("report", ARGS, False), ("report", ARGS, False)
    ]  # fmt: skip
    assert run.outcome["acting_rate"] == 1.0


def test_summarys_dictionary_says_nothing_of_arguments_where_no_action_takes_any(tmp_path):
    _, _, model = play(
        tmp_path, make("babyai", level="goto", max_steps=1), "summary", ["Decisions:\n0: <x>"],
        reply="text",
    )  # fmt: skip
    assert "args" not in model.calls[0]["messages"][-1]["content"]


# -- episodic: EpicStar's exploration, read by CoS's rule (Appendix B) ------------------------

EMPTY = "EMPTY ACTION"
CRAFT = Observation(
    kind="macro", t=0, legal=[Action(id="BUILD"), Action(id="TRAIN"), Action(id=EMPTY)]
)


def exploring(prompt="short"):
    contract = EpisodicContract(gating_start="immediate", explore_actions=3, prompt=prompt)
    contract.use_bank(EpisodicBank.empty())
    contract.reset(episode(empty_action=EMPTY, instructions="Win.", seed=0))
    return contract


@pytest.mark.parametrize("prompt", ["short", "paper"])
def test_episodic_reads_the_decisions_of_an_exploration_reply(prompt):
    valid = "Expand first, not <FLY>.\nDecisions:\n0: <TRAIN>\n1: <BUILD>"
    contract = exploring(prompt)
    assert contract.reply_mode == "text" and contract.text_rule_for(CRAFT) == "action-tags"
    system = "".join(m["content"] for m in contract.assemble(CRAFT).messages())
    assert "<ACTION NAME>" in system and "Decisions:\n0: <ACTION_TO_BE_EXECUTED_FIRST>" in system
    decision = contract.parse(Completion(text=valid), CRAFT)
    assert decision.extra["explored"] == ["TRAIN", "BUILD"] and decision.reasoning == valid
    assert INVALID_KEY not in decision.extra


def test_an_exploration_reply_without_decisions_is_a_parse_error_and_a_near_miss_is_read():
    malformed = exploring().parse(Completion(text="I would <TRAIN>."), CRAFT)
    assert malformed.extra["explored"] == []
    assert malformed.parse_error == "reply has no Decisions: section"
    near = exploring().parse(Completion(text="Decisions:\n0: <FLY>\n1: <TRAIN>"), CRAFT)
    assert len(near.extra["explored"]) == 2 and near.extra["explored"][1] == "TRAIN"
    assert [m["written"] for m in near.extra["near_misses"]] == ["FLY"]
    assert INVALID_KEY not in near.extra


# -- BALROG's agents -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "text", "action"),
    [
        ("balrog-naive", "go forward", "go forward"),
        ("balrog-naive", "turn left.", "turn left"),
        ("balrog-cot", "The wall is ahead, so turn.\nACTION: turn right", "turn right"),
        ("balrog-robust", "Think: wall.\n<|ACTION|>turn left<|END|>", "turn left"),
        ("balrog-robust", "go forward", "go forward"),  # no tag: the whole reply
        ("balrog-robust-cot", "Think.\n<|ACTION|>turn left<|END|>", "turn left"),
    ],
)  # fmt: skip
def test_balrogs_rules_extract_the_action(rule, text, action):
    decision = parse_balrog(text, BABYAI, rule)
    assert [a.id for a in decision.actions] == [action] and decision.parse_error is None


@pytest.mark.parametrize(
    ("rule", "text", "candidate"),
    [
        ("balrog-naive", "Go forward!", "Go forward"),  # exact, as BALROG's vocabulary check
        ("balrog-cot", "I go. ACTION: jump", "jump"),
        ("balrog-robust", "<|ACTION|>turn around<|END|>", "turn around"),
        ("balrog-naive", "turn left\n.", "turn left\n"),  # not trimmed after the filter
        ("balrog-naive", "turn to the left", "turn to the left"),  # a label: not BALROG's
        ("balrog-robust-cot", "turn left", ROBUST_COT_MISSING),  # no tag: BALROG's placeholder
    ],
)  # fmt: skip
def test_balrogs_rules_record_an_illegal_action(rule, text, candidate):
    decision = parse_balrog(text, BABYAI, rule)
    assert decision.actions == [] and decision.extra["invalid_actions"] == [candidate]
    assert balrog_candidate(text, rule) == candidate


def test_balrog_naive_plays_the_default_action_and_says_so_next(tmp_path):
    run, decisions, model = play(
        tmp_path, make("babyai", level="goto", max_steps=3), "balrog-naive",
        ["turn left", "I will go forwards now", "turn right"],
    )  # fmt: skip
    assert [d.actions[0].id for d in decisions] == ["turn left", "go forward", "turn right"]
    assert [d.fallback for d in decisions] == [False, True, False]
    assert decisions[1].info["invalid_actions"] == ["I will go forwards now"]
    assert decisions[1].info["fallback_action"] == "go forward"
    prompts = [call["messages"][-1]["content"] for call in model.calls]
    note = "Your previous output did not contain a valid action. Defaulted to action: go forward"
    assert note in prompts[2] and note not in prompts[1]
    assert all(call["constraint"] is None for call in model.calls)
    assert prompts[0].endswith(BALROG_NAIVE_NOTE)  # BALROG's naive instruction closes it
    assert run.model_params["reply"]["mode"] == "text"


def test_a_cot_reply_is_resent_as_its_action_beyond_the_newest():
    contract = make_contract("balrog-cot")
    from bounded.core import Completion, StepResult
    from bounded.testing import episode

    contract.reset(episode(instructions="Walk."))
    for i in range(3):
        contract.assemble(BABYAI)
        decision = contract.parse(Completion(text=f"thought {i}\nACTION: turn left"), BABYAI)
        contract.commit(BABYAI, decision, StepResult())
    replies = [
        m["content"] for m in contract.assemble(BABYAI).messages() if m["role"] == "assistant"
    ]
    assert replies == ["turn left", "turn left", "Previous plan:\nthought 2\nACTION: turn left"]


# -- the modes themselves ----------------------------------------------------------------


def test_json_mode_asks_for_any_object_and_parses_leniently(tmp_path):
    reply = 'Sure: {"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": '
    reply += json.dumps(ARGS) + "}}"
    _, decisions, model = play(
        tmp_path, make("warehouse", horizon=1), "state", [reply], reply="json"
    )
    assert model.calls[0]["constraint"] == ANY_JSON_OBJECT
    assert not decisions[0].fallback


def test_constrained_mode_sends_the_reply_schema(tmp_path):
    reply = json.dumps(
        {"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}}
    )
    _, _, model = play(
        tmp_path, make("warehouse", horizon=1), "state", [reply], reply="constrained"
    )
    assert "action" in model.calls[0]["constraint"]["properties"]


@pytest.mark.parametrize("rule", ["decision-tag", "json-block", "action-tags", "balrog-naive"])
def test_no_reply_text_crashes_a_rule(rule):
    for text in ("", "<decision>", "{" * 200, "```json\n{\n```", "<|ACTION|><|END|>", "\udfff"):
        decision, _ = parse_reply(text, BABYAI, "text", rule)
        assert decision.actions or decision.parse_error


def test_a_balrog_reply_naming_no_legal_action_is_typed_where_the_game_takes_any_string() -> None:
    from bounded.contracts.replies.rules import parse_balrog
    from bounded.core import FREE_TEXT_ACTION

    typed = Observation(kind="play", legal=[Action(id="look"), Action(id=FREE_TEXT_ACTION)])
    closed = Observation(kind="play", legal=[Action(id="look")])
    [action] = parse_balrog("open the box", typed, "balrog-naive").actions
    assert (action.id, action.args) == (FREE_TEXT_ACTION, {"text": "open the box"})
    assert [a.id for a in parse_balrog("look", typed, "balrog-naive").actions] == ["look"]
    assert parse_balrog("open the box", closed, "balrog-naive").actions == []
    assert parse_balrog("", closed, "balrog-naive").parse_error == "reply names no action"
    [empty] = parse_balrog("  \n", typed, "balrog-naive").actions  # BALROG types "" too
    assert (empty.id, empty.args) == (FREE_TEXT_ACTION, {"text": ""})
    non_empty = {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}}}
    strict = Observation(kind="play", legal=[Action(id=FREE_TEXT_ACTION, schema=non_empty)])
    assert parse_balrog("...", strict, "balrog-naive").parse_error == "reply names no action"
