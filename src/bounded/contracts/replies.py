"""Replies as each method reads them: the instruction a prompt ends with and the parse of
the reply, per reply mode (`bounded.core.ReplyMode`) and, in `text` mode, per text rule.

In `constrained` and `json` mode a reply is one JSON object (`reply_format` asks for it;
`parse_decision` reads it leniently: bare, fenced or inside prose). In `text` mode the reply
is free text, read by the rule of the method the contract reproduces:

- `decision-tag` (AgenticSTS, Appendix E.1): prose, then the reply object inside
  `<decision>...</decision>`; the tag's JSON object is the decision;
- `json-block` (SKILL.state's `parse_response`): reasoning, then a JSON block; the last JSON
  object is the decision, the text before it the reasoning;
- `action-tags` (EpicStar and CoS, Appendix B): prose naming each action as
  `<ACTION NAME>`; every tag, in order, is a decision;
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
outside the legal set is an invalid action (`bounded.contracts._reply.NotLegalError`,
recorded on the decision as `invalid_actions`): what runs instead is the contract's
fallback rule.
"""

from __future__ import annotations

import json
import re
from typing import get_args

from bounded.contracts._render import reply_format
from bounded.contracts._reply import (
    _DECODER,
    INVALID_KEY,
    MAX_JSON_DEPTH,
    NotLegalError,
    clip,
    nests_deeper,
    note_invalid,
    note_scrubbed,
    parse_decision,
    resolve_action,
    scrub,
)
from bounded.core import (
    FREE_TEXT_ACTION,
    JSON,
    Action,
    Decision,
    Observation,
    ReplyMode,
    TextRule,
)
from bounded.validation import is_valid

TEXT_RULES: tuple[str, ...] = get_args(TextRule)

DECISION_TAG = re.compile(r"<decision>(.*?)(?:</decision>|\Z)", re.DOTALL | re.IGNORECASE)
ROBUST_TAG = re.compile(r"<\|ACTION\|>(.*?)<\|END\|>", re.DOTALL)
NOT_LETTERS = re.compile(r"[^a-zA-Z\s:]")
FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)

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
        return "Write your answer in plain text, naming each action as <ACTION NAME>."
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
    text: str, obs: Observation, mode: ReplyMode, rule: TextRule
) -> tuple[Decision, JSON]:
    """A reply read as its mode and rule say (never raises: problems land in
    `parse_error`, invalid actions in `extra["invalid_actions"]`)."""
    if mode != "text":
        return parse_decision(text, obs)
    if rule == "decision-tag":
        return parse_decision_tag(text, obs)
    if rule == "json-block":
        return parse_json_block(text, obs)
    if rule == "action-tags":
        return parse_action_tags(text, obs), {}
    return parse_balrog(text, obs, rule), {}


ACTION_TAG = re.compile(r"<([^<>\n]{1,80})>")


def action_tags(text: str) -> list[str]:
    """The names written as `<ACTION NAME>` in free text, in order."""
    return [name.strip() for name in ACTION_TAG.findall(text)]


def parse_action_tags(text: str, obs: Observation) -> Decision:
    """EpicStar's reply read as one decision: the legal actions named as `<ACTION NAME>`, in
    order, up to `obs.max_actions`; the prose is the reasoning. Names that are not legal are
    invalid actions (the decision keeps the legal ones)."""
    clean, replaced = scrub(text)
    decision = Decision(reasoning=clean.strip())
    note_scrubbed(decision, replaced)
    for name in action_tags(clean):
        if len(decision.actions) >= obs.max_actions:
            break
        try:
            decision.actions.append(resolve_action({"id": name}, obs))
        except NotLegalError as exc:
            note_invalid(decision, exc.candidate)
        except ValueError as exc:
            decision.parse_error = clip(str(exc))
    if not decision.actions:
        invalid = decision.extra.get(INVALID_KEY)
        decision.parse_error = decision.parse_error or (
            f"no <ACTION NAME> is legal now ({len(invalid)} named)"
            if invalid
            else "reply names no <ACTION NAME>"
        )
    return decision


def _with_prose(decision: Decision, reply: JSON, prose: str) -> Decision:
    """The reply's own reasoning, else the prose around its JSON."""
    if not decision.reasoning and prose.strip():
        decision.reasoning = prose.strip()
    return decision


def parse_decision_tag(text: str, obs: Observation) -> tuple[Decision, JSON]:
    """AgenticSTS's reply: the JSON object inside the last `<decision>` tag (an unclosed
    tag runs to the end of the reply); the prose before it is the reasoning."""
    found = list(DECISION_TAG.finditer(text))
    if not found:
        decision = Decision(parse_error="reply holds no <decision> tag")
        note_scrubbed(decision, scrub(text)[1])
        return decision, {}
    last = found[-1]
    decision, reply = parse_decision(last.group(1), obs)
    return _with_prose(decision, reply, text[: last.start()]), reply


def last_json_object(text: str) -> tuple[JSON, int] | None:
    """The last JSON object of free text (the last fenced block that holds one, else the
    last object written bare) and where it starts; None when it holds none, or when its
    brackets nest deeper than `MAX_JSON_DEPTH`. Each object found is skipped whole."""
    if nests_deeper(text, MAX_JSON_DEPTH):
        return None
    for block in reversed(list(FENCED.finditer(text))):
        body = block.group(1).strip()
        if not body.startswith("{"):
            continue
        try:
            value, _ = _DECODER.raw_decode(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value, block.start()
    found: tuple[JSON, int] | None = None
    start = text.find("{")
    while start >= 0:
        end = start + 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            pass
        else:
            if isinstance(value, dict):
                found = (value, start)
        start = text.find("{", max(end, start + 1))
    return found


def parse_json_block(text: str, obs: Observation) -> tuple[Decision, JSON]:
    """SKILL.state's reply: reasoning, then a JSON block (`state_patch`, `action`); the last
    JSON object is the block, the text before it the reasoning."""
    clean, replaced = scrub(text)
    found = last_json_object(clean)
    if found is None:
        decision = Decision(parse_error="reply holds no JSON block")
        note_scrubbed(decision, replaced)
        return decision, {}
    value, start = found
    decision, reply = parse_decision(json.dumps(value, ensure_ascii=False), obs)
    note_scrubbed(decision, replaced)
    return _with_prose(decision, reply, clean[:start]), reply


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
    "BALROG_COT_NOTE",
    "BALROG_NAIVE_NOTE",
    "BALROG_ROBUST_COT_NOTE",
    "BALROG_ROBUST_NOTE",
    "ROBUST_COT_MISSING",
    "TEXT_RULES",
    "TextRule",
    "balrog_candidate",
    "instruction",
    "last_json_object",
    "match_legal",
    "parse_balrog",
    "parse_decision_tag",
    "parse_json_block",
    "parse_reply",
    "text_instruction",
]
