"""Replies as each method reads them: the instruction a prompt ends with and the parse of
the reply, per reply mode (`bounded.protocols.ReplyMode`) and, in `text` mode, per text rule.

In `constrained` and `json` mode a reply is one JSON object (`reply_format` asks for it;
`parse_decision` reads it leniently: bare, fenced or inside prose). In `text` mode the reply
is free text, read by the rule of the method the contract reproduces:

- `decision-tag` (AgenticSTS, Appendix E.1): valid JSON inside `<decision>...</decision>`,
  reasoning required inside it (where the reply asks for reasoning). Of several tags the
  last usable one is the decision (`last-usable`, a named choice: the paper is silent);
- `json-block` (SKILL.state's `parse_response`): reasoning, then the JSON block carrying
  `state_patch` / `action`: the last JSON object of the reply that holds `state_patch`,
  `action` or `actions` (a trailing object without them is not the block);
- `action-tags` (CoS's reference extractor, `bounded.contracts.replies.cos`, which EpicStar's
  prompts adapt): the numbered `N: <ACTION NAME>` items after `Decisions:`, names
  upper-cased, a near miss read as the nearest legal action;
- `balrog-naive` (BALROG's naive agent): the reply with all but letters, whitespace and
  colons removed is the action (not trimmed after the removal, as BALROG's: `turn left.\n!`
  names `turn left\n`, no action);
- `balrog-cot` (BALROG's cot agent): reasoning, then `ACTION: <action>`; what follows the
  last `ACTION:` (letters, spaces and colons, trimmed) is the action;
- `balrog-robust` (BALROG's robust naive agent): the text inside the first
  `<|ACTION|>...<|END|>`, else the whole reply, trimmed, is the action;
- `balrog-robust-cot` (BALROG's robust cot agent): the text inside the first
  `<|ACTION|>...<|END|>`; a reply without the tag names BALROG's placeholder
  (`ROBUST_COT_MISSING`), which no game has.

A BALROG rule reads the reply stripped (BALROG's clients strip every completion before its
agent reads it). The extracted action is matched exactly against the legal actions' ids,
BALROG's vocabulary, never their labels (BALROG's `check_action_validity`: `candidate in
language_action_space`); an action whose arguments the agent must fill in cannot be named
by a BALROG rule. Where the game takes any string (`FREE_TEXT_ACTION`) every extraction is
typed, the empty one too where the game takes it (BALROG's TextWorld does). An action
outside the legal set is an invalid action (`bounded.contracts.replies.reading.NotLegalError`,
recorded on the decision as `invalid_actions`): what runs instead is the contract's
fallback rule.
"""

from __future__ import annotations

import json
import re
from typing import get_args

from bounded.contracts._render import reply_format
from bounded.contracts.replies import cos
from bounded.contracts.replies.reading import (
    _DECODER,
    INVALID_KEY,
    MAX_JSON_DEPTH,
    NotLegalError,
    clip,
    nests_deeper,
    note_invalid,
    note_scrubbed,
    parse_decision,
    scrub,
)
from bounded.core import FREE_TEXT_ACTION, JSON, Action, Decision, Observation
from bounded.protocols import ReplyMode, TextRule
from bounded.validation import is_valid

TEXT_RULES: tuple[str, ...] = get_args(TextRule)

DECISION_TAG = re.compile(r"<decision>(.*?)(?:</decision>|\Z)", re.DOTALL | re.IGNORECASE)
ROBUST_TAG = re.compile(r"<\|ACTION\|>(.*?)<\|END\|>", re.DOTALL)
NOT_LETTERS = re.compile(r"[^a-zA-Z\s:]")
FENCE_OPENER = re.compile(r"```(?:json)?\s*\Z", re.IGNORECASE)

BALROG_NAIVE_NOTE = (
    "You always have to output one of the above actions at a time and no other text. You "
    "always have to output an action until the episode terminates."
)
BALROG_COT_NOTE = (
    "First think about what's the best course of action step by step.\nFinally, provide a "
    "single output action at the end of the message in the form of: ACTION: <action>"
)
BALROG_ROBUST_NOTE = (
    "You must choose exactly one of the listed actions and output it strictly in the "
    "following format:\n\n<|ACTION|>YOUR_CHOSEN_ACTION<|END|>\n\nReplace YOUR_CHOSEN_ACTION "
    "with the chosen action. Output no other text, explanation, or reasoning."
)
BALROG_ROBUST_COT_NOTE = (
    "First, think about the best course of action.\nThen, you must choose exactly one of the "
    "listed actions and output it strictly in the following format:\n\n"
    "<|ACTION|>YOUR_CHOSEN_ACTION<|END|>\n\nReplace YOUR_CHOSEN_ACTION with the chosen action."
)
ROBUST_COT_MISSING = "Failed to obtain a valid action from the reasoning."
"""BALROG's agents' closing instructions, as its naive, cot, robust naive and robust cot
agents word them (`balrog/agents/*.py`, BALROG commit af7d1f1); `ROBUST_COT_MISSING` is what
its robust cot agent names when a reply holds no tag."""

ACTION_TAGS_NOTE = (
    "Write your answer in plain text. End it with the line Decisions: and then one line per "
    "decision, numbered from 0 in the order they should run, each naming its action as "
    "<ACTION NAME>, like:\nDecisions:\n0: <ACTION_TO_BE_EXECUTED_FIRST>\n"
    "1: <ACTION_TO_BE_EXECUTED_SECOND>"
)
"""The `action-tags` closing instruction: CoS's decisions format, as its reference prompt asks
for it (`prompt/prompt.py`, `StarCraftIIPrompt_V3`, at 5e9b425), the form its extractor reads."""


def _keys(schema: JSON, *, prose_reasoning: bool = False) -> str:
    """The reply object's keys, in order (without `reasoning` where the prose before the
    object is the reasoning)."""
    keys = [k for k in schema.get("properties", {}) if not (prose_reasoning and k == "reasoning")]
    return ", ".join(f'"{key}"' for key in keys)


def text_instruction(schema: JSON, rule: TextRule) -> str:
    """How to answer in `text` mode under `rule`, shown to the model."""
    if rule == "decision-tag":
        return (
            "Think it through in plain text first if you wish. Then give your decision as one "
            f"JSON object with the keys {_keys(schema)}, inside a decision tag: "
            '<decision>{...}</decision>. An action is {"id": "<legal id>", "args": {...}} '
            "(args only when the action lists some)."
        )
    if rule == "json-block":
        return (
            "First write your reasoning in plain text. Then end your reply with one JSON object "
            f"(a ```json block) with the keys {_keys(schema)}. An action is "
            '{"id": "<legal id>", "args": {...}} (args only when the action lists some).'
        )
    if rule == "action-tags":
        return ACTION_TAGS_NOTE
    if rule == "balrog-naive":
        return BALROG_NAIVE_NOTE
    if rule == "balrog-cot":
        return BALROG_COT_NOTE
    if rule == "balrog-robust-cot":
        return BALROG_ROBUST_COT_NOTE
    return BALROG_ROBUST_NOTE


def instruction(schema: JSON, mode: ReplyMode, rule: TextRule) -> str:
    """The reply instruction of a prompt: one JSON object (constrained, json), or the text
    rule's wording."""
    return text_instruction(schema, rule) if mode == "text" else reply_format(schema)


def parse_reply(
    text: str,
    obs: Observation,
    mode: ReplyMode,
    rule: TextRule,
    *,
    reasoning_required: bool = False,
) -> tuple[Decision, JSON]:
    """A reply read as its mode and rule say (never raises: problems land in
    `parse_error`, invalid actions in `extra["invalid_actions"]`). `reasoning_required`:
    the reply asks for reasoning, which a decision tag must then hold."""
    if mode != "text":
        return parse_decision(text, obs)
    if rule == "decision-tag":
        return parse_decision_tag(text, obs, reasoning_required=reasoning_required)
    if rule == "json-block":
        return parse_json_block(text, obs)
    if rule == "action-tags":
        return parse_action_tags(text, obs), {}
    return parse_balrog(text, obs, rule), {}


def parse_action_tags(text: str, obs: Observation) -> Decision:
    """A reply's decisions read by CoS's rule (`bounded.contracts.replies.cos`), up to
    `obs.max_actions` of them (the rest recorded as `decisions_dropped`); the prose before
    `Decisions:` is the reasoning. A reply with no decision is a parse error."""
    clean, replaced = scrub(text)
    reading = cos.read_decisions(clean, obs, keep=obs.max_actions)
    decision = Decision(
        actions=reading.actions,
        reasoning=cos.analysis_before_decisions(clean),
        parse_error=reading.problem,
    )
    note_scrubbed(decision, replaced)
    cos.note_reading(decision.extra, reading)
    for name in reading.invalid:
        note_invalid(decision, name)
    return decision


def _with_prose(decision: Decision, reply: JSON, prose: str) -> Decision:
    """The reply's own reasoning, else the prose around its JSON."""
    if not decision.reasoning and prose.strip():
        decision.reasoning = prose.strip()
    return decision


MISSING_REASONING = "the decision's JSON has no reasoning, which the decision tag requires"
"""A tag whose JSON lacks the `reasoning` string the reply schema requires (an empty string
is one: the schema's `required`, as a constrained decoder also reads it)."""


def _tag_decision(
    body: str, obs: Observation, *, reasoning_required: bool
) -> tuple[Decision, JSON]:
    """One decision tag's content read as the decision (its JSON object)."""
    decision, reply = parse_decision(body, obs)
    reasoning = reply.get("reasoning")
    if reasoning_required and reply and not isinstance(reasoning, str):
        decision.actions, decision.parse_error = [], MISSING_REASONING
        decision.extra.pop(INVALID_KEY, None)  # the reply is not read: it names nothing
    return decision, reply


def parse_decision_tag(
    text: str, obs: Observation, *, reasoning_required: bool = False
) -> tuple[Decision, JSON]:
    """AgenticSTS's reply: valid JSON inside a `<decision>` tag (an unclosed tag runs to the
    end of the reply), its reasoning inside it where `reasoning_required` (Appendix E.1).
    Of several tags, the last usable one (`last-usable`: it holds a JSON object with the
    reasoning required and actions that resolve) is the decision, so a note quoting an
    example tag after the answer, or prose naming the tag before it, does not replace it;
    with none usable, the last tag that holds a JSON object says why (else the last tag).
    The prose before the tag read is the reasoning where its JSON holds none."""
    found = list(DECISION_TAG.finditer(text))
    if not found:
        decision = Decision(parse_error="reply holds no <decision> tag")
        note_scrubbed(decision, scrub(text)[1])
        return decision, {}
    read = [
        (tag, *_tag_decision(tag.group(1), obs, reasoning_required=reasoning_required))
        for tag in found
    ]
    usable = [item for item in read if item[1].actions and not item[1].parse_error]
    with_object = [item for item in read if item[2]]
    tag, decision, reply = (usable or with_object or read)[-1]
    if len(found) > 1:
        decision.extra["decision_tags"] = len(found)
    return _with_prose(decision, reply, text[: tag.start()]), reply


BLOCK_KEYS = ("state_patch", "action", "actions")
"""What marks a reply's JSON block: it carries a state patch or the action(s)."""
NO_JSON_BLOCK = "reply holds no JSON block (an object with state_patch, action or actions)"


def json_objects(text: str) -> list[tuple[JSON, int]]:
    """Every JSON object written in free text (bare or in a fence), in order, with where it
    starts; each object found is skipped whole (its inner objects are not listed). None
    are listed where the brackets nest deeper than `MAX_JSON_DEPTH`."""
    if nests_deeper(text, MAX_JSON_DEPTH):
        return []
    found: list[tuple[JSON, int]] = []
    start = text.find("{")
    while start >= 0:
        end = start + 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            pass
        else:
            if isinstance(value, dict):
                found.append((value, start))
        start = text.find("{", max(end, start + 1))
    return found


def last_json_object(text: str) -> tuple[JSON, int] | None:
    """The reply's JSON block and where it starts: the last JSON object that carries
    `state_patch`, `action` or `actions` (`BLOCK_KEYS`); None when it holds none."""
    blocks = [item for item in json_objects(text) if any(key in item[0] for key in BLOCK_KEYS)]
    return blocks[-1] if blocks else None


def parse_json_block(text: str, obs: Observation) -> tuple[Decision, JSON]:
    """SKILL.state's reply: reasoning, then the JSON block carrying `state_patch` and
    `action` (`last_json_object`); the text before the block is the reasoning."""
    clean, replaced = scrub(text)
    found = last_json_object(clean)
    if found is None:
        decision = Decision(parse_error=NO_JSON_BLOCK)
        note_scrubbed(decision, replaced)
        return decision, {}
    value, start = found
    decision, reply = parse_decision(json.dumps(value, ensure_ascii=False), obs)
    note_scrubbed(decision, replaced)
    prose = FENCE_OPENER.sub("", clean[:start])
    return _with_prose(decision, reply, prose), reply


def balrog_candidate(text: str, rule: TextRule) -> str:
    """The action BALROG's agent of this rule extracts from a reply."""
    if rule in ("balrog-robust", "balrog-robust-cot"):
        match = ROBUST_TAG.search(text)
        if match:
            return match.group(1).strip()
        return text.strip() if rule == "balrog-robust" else ROBUST_COT_MISSING
    kept = NOT_LETTERS.sub("", text)
    if rule == "balrog-cot":
        return kept.split("ACTION:")[-1].strip()
    return kept


def match_legal(candidate: str, obs: Observation) -> Action:
    """The legal action whose id (BALROG's vocabulary; never a label) is exactly
    `candidate`; a `NotLegalError` otherwise, and a ValueError for one whose arguments must
    be filled in."""
    action = obs.legal_action(candidate)
    if action is None:
        raise NotLegalError(candidate)
    if action.schema_:
        raise ValueError(f"action {action.id!r} needs arguments, which a BALROG reply cannot give")
    return action


def types_it(free_text: Action | None, candidate: str) -> bool:
    """Whether the game's free-text action takes `candidate` as its command: any text, the
    empty one where its schema allows it (BALROG's TextWorld: `AlwaysTrue` holds "")."""
    if free_text is None:
        return False
    return bool(candidate.strip()) or is_valid({"text": candidate}, free_text.schema_ or {})


def parse_balrog(text: str, obs: Observation, rule: TextRule) -> Decision:
    """A BALROG agent's reply: the extracted action, checked against the legal list (where
    the game takes any string, `FREE_TEXT_ACTION`, any other is typed, the empty one where
    the game takes it, `types_it`);
    the whole reply, stripped as BALROG's clients strip it, is the reasoning of the cot
    rules."""
    clean, replaced = scrub(text)
    clean = clean.strip()
    candidate = balrog_candidate(clean, rule)
    decision = Decision(reasoning=clean if rule != "balrog-naive" else "")
    note_scrubbed(decision, replaced)
    try:
        decision.actions = [match_legal(candidate, obs)]
    except (NotLegalError, ValueError) as exc:
        if types_it(obs.legal_action(FREE_TEXT_ACTION), candidate):
            decision.actions = [Action(id=FREE_TEXT_ACTION, args={"text": candidate})]
        elif isinstance(exc, NotLegalError):
            decision.parse_error = str(exc) if candidate.strip() else "reply names no action"
            note_invalid(decision, exc.candidate)
        else:
            decision.parse_error = clip(str(exc))
    return decision


__all__ = [
    "ACTION_TAGS_NOTE",
    "BALROG_COT_NOTE",
    "BALROG_NAIVE_NOTE",
    "BALROG_ROBUST_COT_NOTE",
    "BALROG_ROBUST_NOTE",
    "ROBUST_COT_MISSING",
    "TEXT_RULES",
    "TextRule",
    "balrog_candidate",
    "instruction",
    "json_objects",
    "last_json_object",
    "match_legal",
    "parse_action_tags",
    "parse_balrog",
    "parse_decision_tag",
    "parse_json_block",
    "parse_reply",
    "text_instruction",
]
