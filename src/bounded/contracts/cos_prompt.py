"""The Chain-of-Summarization prompt (EpicStar's Appendix B, Prompts 1 and 2), in our words.

Prompt 2 (CoS) asks for a structured analysis in six parts, suggestions in five areas
(the fifth, feasibility, brainstorming decisions that can be carried out now) and three
decisions named from the action dictionary as `<ACTION NAME>`. Prompt 1 (EpicStar's
backbone) is the same prompt with the strategy description of the retrieved episodes
inserted right after the role line ("Specifically, you are playing ..."). The reply
schema carries the same parts, so a constrained decoder always answers in this shape
with legal decisions.

Length limits: each text field may hold `field_chars(...)` characters, a share of the
room the reply has (`reply_tokens`, at most a quarter of the model's context window),
not a fixed cap.
"""

from __future__ import annotations

import re

from bounded.contracts.replies.reading import (
    action_with_args_schema,
    closed_object,
    resolve_action,
)
from bounded.core import JSON, Action, Observation

ROLE = """\
You are an AI trained in analysing and summarising games of the kind described above. You \
understand its rules and the strategies that win it."""

STRATEGY = "Specifically, you are playing this strategy: {description}"

ANALYSIS = """\
Based on the summaries of the latest rounds of the game, analyse its progression in a \
structured way. Your analysis covers:
1. Game overview: a brief overview of the current situation over all the rounds.
2. Current game stage: early game, mid-game or late game, judged from all the rounds.
3. Our situation:
3.1 Units and buildings: the state of our units and buildings.
3.2 Economy: our economy, resource collection and spending.
3.3 Technology: the research done and unlocked so far, and what the technology tree \
offers next.
4. Our strategy: the strategy our situation and the rounds suggest we follow.
5. Enemy's strategy: the enemy's likely strategy, from what is known.
6. Key information: what in these rounds most influenced the game."""

SUGGESTIONS = """\
From the situation and both sides' strategies, give suggestions in these areas:
1. Our strategy: adjustments that counter the enemy and use our strengths.
2. Units and buildings: a better unit composition and buildings for this stage.
3. Economy: better resource gathering and spending for our strategy.
4. Technology: the research to pursue next, given what is done and available.
5. Feasibility: from our current resources, buildings, supply and workers, {n} coarse \
decisions that can be carried out now, and why."""

DECISIONS = """\
Decisions: finally, from the situation and the suggestions, make {n} actionable and \
specific decisions from the action dictionary, in the order they should run. Keep them in \
line with the game stage{strategy}, and avoid decisions that cannot be carried out now \
(more resources than we have, prerequisites missing). Write each as <ACTION NAME>."""

ANSWER = """\
Answer with one JSON object: "analysis" (the six parts above), "suggestions" (the five \
areas) and "decisions" (the list of <ACTION NAME>)."""

TEXT_ANSWER = """\
Answer in plain text: the analysis (the six parts above), the suggestions (the five areas), \
and last the line Decisions:, then one line per decision, numbered from 0 in the order they \
should run, each written as <ACTION NAME>, like:
Decisions:
0: <ACTION_TO_BE_EXECUTED_FIRST>
1: <ACTION_TO_BE_EXECUTED_SECOND>"""
"""The closing instruction of a `text` reply: the paper's free text with decisions tagged, in
the numbered form CoS's reference prompt asks for and its extractor reads
(`StarCraftIIPrompt_V3` and `utils/action_extractor.py` at 5e9b425;
`bounded.contracts.replies.cos`)."""

ANALYSIS_PARTS = (
    "game_overview",
    "game_stage",
    "our_situation",
    "our_strategy",
    "enemy_strategy",
    "key_information",
)
SITUATION_PARTS = ("units_and_buildings", "economy", "technology")
SUGGESTION_AREAS = ("our_strategy", "units_and_buildings", "economy", "technology", "feasibility")
TEXT_FIELDS = len(ANALYSIS_PARTS) - 1 + len(SITUATION_PARTS) + len(SUGGESTION_AREAS)
"""How many free-text fields a reply holds (13)."""

CHARS_PER_TOKEN = 4
MIN_FIELD_CHARS = 40

TAG = re.compile(r"<([^<>\n]{1,80})>")


def field_chars(reply_tokens: int, context_window: int | None) -> int:
    """Characters each text field may hold: the reply's room shared among its fields."""
    room = reply_tokens if not context_window else min(reply_tokens, context_window // 4)
    return max(MIN_FIELD_CHARS, room * CHARS_PER_TOKEN // TEXT_FIELDS)


def system_prompt(
    instructions: str, decisions: int, *, strategy: bool = False, text: bool = False
) -> list[str]:
    """The parts of the system prompt around the strategy slot: [before, after].

    The strategy description (Prompt 1) goes between the two; Prompt 2 joins them. `text`:
    the reply is free text (`TEXT_ANSWER`), not the JSON object."""
    before = "\n\n".join(p for p in (instructions, ROLE) if p)
    after = "\n\n".join(
        (
            ANALYSIS,
            SUGGESTIONS.format(n=decisions),
            DECISIONS.format(n=decisions, strategy=" and the strategy above" if strategy else ""),
            TEXT_ANSWER if text else ANSWER,
        )
    )
    return [before, after]


def reply_schema(legal: list[Action], decisions: int, chars: int) -> JSON:
    """The reply's shape: the analysis, the suggestions and up to `decisions` decisions."""
    text: JSON = {"type": "string", "maxLength": chars}
    situation = closed_object({part: text for part in SITUATION_PARTS})
    analysis = closed_object(
        {part: situation if part == "our_situation" else text for part in ANALYSIS_PARTS}
    )
    return closed_object(
        {
            "analysis": analysis,
            "suggestions": closed_object({area: text for area in SUGGESTION_AREAS}),
            "decisions": {
                "type": "array",
                "items": decision_item_schema(legal),
                "minItems": 1,
                "maxItems": decisions,
            },
        }
    )


def tag(action_id: str) -> str:
    return f"<{action_id}>"


def decision_item_schema(legal: list[Action]) -> JSON:
    """One decision: a `<NAME>` string for a plain action, an object for one with args."""
    plain = [tag(a.id) for a in legal if not a.schema_]
    branches: list[JSON] = []
    if plain:
        branches.append({"type": "string", "enum": plain})
    branches.extend(action_with_args_schema(a) for a in legal if a.schema_)
    if not branches:
        return {"type": "string"}
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def resolve_decision(item: object, obs: Observation) -> Action:
    """A `<NAME>` string (or `NAME`, or an action object) checked against the legal list."""
    if isinstance(item, str):
        match = TAG.fullmatch(item.strip())
        item = {"id": match.group(1).strip() if match else item.strip()}
    return resolve_action(item, obs)


def decisions_from_text(text: str) -> list[str]:
    """`<ACTION NAME>` tags in free text (for replies that are not JSON)."""
    return [f"<{name.strip()}>" for name in TAG.findall(text)]


def flatten_text(value: object) -> str:
    """A reply part (a string, or an object of parts) as one line of `key: text` pairs."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{key}: {flatten_text(item)}" for key, item in value.items())
    return ""


def reply_text_limit(field_limit: int) -> int:
    """The longest flattened analysis or suggestions a decision keeps: every field full."""
    return field_limit * TEXT_FIELDS


__all__ = [
    "ANALYSIS_PARTS",
    "SUGGESTION_AREAS",
    "decision_item_schema",
    "decisions_from_text",
    "field_chars",
    "flatten_text",
    "reply_schema",
    "reply_text_limit",
    "resolve_decision",
    "system_prompt",
    "tag",
]
