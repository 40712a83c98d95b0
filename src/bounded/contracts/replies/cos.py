"""CoS's reading of a reply's decisions, written from the rule of its reference code.

The reference is the Chain-of-Summarization agent of TextStarCraft II (Ma et al. 2024,
github histmeisah/Large-Language-Models-play-StarCraftII at 5e9b425): the function
`extract_actions_from_text` and the class `ActionExtractor` of `utils/action_extractor.py`,
which its agents import (`agent/chatgpt_agent.py` at 5e9b425; at its newest commit the
ChatGPT, GPT-4, Claude 2, Gemini, GLM-4, Llama 2 and Qwen agents, among others). Its rule:

1. The decisions are read from the text after the first `Decisions:` (that exact spelling,
   colon included); a reply without one has no decisions, and the reference queues its
   empty action (`EMPTY ACTION`).
2. A decision is a number, a colon and one space, then its name: an optional `<`, then
   everything up to the next `>` or the end of the line (`0: <TRAIN PROBE>`,
   `1: BUILD PYLON`). Every such item of the section is read, in order, wherever it stands
   (a note's `step 1: <BUILD PYLON>` too); repeats are kept and there is no limit on how
   many. `1. <TRAIN PROBE>` (a full stop), `0:<TRAIN PROBE>` (no space) and tags with no
   number (`Decisions: <TRAIN PROBE>`) are not decisions. The section holding no item is
   read as no decisions, like a reply without one.
3. The name, upper-cased (not trimmed), is the action whose name upper-cased equals it;
   any other name is a near miss, read as the nearest action. The reference finds it by
   the cosine similarity of sentence embeddings (`all-mpnet-base-v2`, a Chroma query over
   the whole action dictionary) and keeps the nearest whatever its distance: every name
   read becomes an action.

Where bounded differs (named, documented in docs/replies.md): the nearest action is found
among the legal actions of the observation (the only names a contract sees; the reference
searches the whole dictionary, so an action not executable now is tried and fails), by
`difflib`'s similarity ratio of the upper-cased names (no embedding model is shipped).
Each near miss is recorded with what it was read as (`Decision.extra["near_misses"]`).

The reference's actions take no arguments; an action that does (the warehouse's `report`)
cannot be named by the rule alone. bounded's extension, which leaves every reply without
one read as the reference reads it: a decision whose name is an action's (upper-cased,
exactly) followed by a JSON object is that action with the object as its arguments
(`0: <report {"occupied": 1, "shipped": 0}>`), where that action takes arguments
(`args_after_name`); anything else is read whole as the name.

`utils/action_extractor_v2.py` of the same commit differs only in step 2: it reads
`Action: <NAME>` items (the form `prompt/new_prompt_textsc2.py` asks for); one agent,
`agent/gpt_level1_llm_version.py`, imports it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from bounded.contracts.replies.reading import NotLegalError, clip, resolve_action
from bounded.core import JSON, Action, Observation

DECISIONS_HEADING = "Decisions:"
"""Where the decisions start (the first occurrence; case and colon as written)."""

DECISION_ITEM = re.compile(r"\d+: <?([^>\n]+)")
"""One decision: a number, `: `, an optional `<`, and the name up to `>` or the line end."""

NEAREST_NEEDS_LEGAL = "no legal action to read a decision as"


def decisions_section(text: str) -> str | None:
    """The text after the first `Decisions:`, or None when the reply has none."""
    _, heading, after = text.partition(DECISIONS_HEADING)
    return after if heading else None


def decision_names(text: str) -> list[str] | None:
    """The decision names a reply writes, in order, as written (None: no `Decisions:`)."""
    section = decisions_section(text)
    return None if section is None else DECISION_ITEM.findall(section)


COMPARED_CHARS = 200
"""How much of a name the similarity reads: a name far longer than any action's is read as
its nearest action all the same, in bounded time whatever a reply holds."""


def similarity(written: str, action_id: str) -> float:
    """How alike an upper-cased name and an action id are (0 to 1)."""
    name = written[:COMPARED_CHARS]
    return SequenceMatcher(None, name, action_id.upper(), autojunk=False).ratio()


def nearest_legal(written: str, obs: Observation) -> Action:
    """The legal action a name is read as: the one whose upper-cased id equals the
    upper-cased name, else the most similar (the first of equals); `NotLegalError` when
    there is no legal action."""
    key = written.upper()
    exact = next((a for a in obs.legal if a.id.upper() == key), None)
    if exact is not None:
        return exact
    if not obs.legal:
        raise NotLegalError(written)
    return max(obs.legal, key=lambda action: similarity(key, action.id))


def args_after_name(written: str, obs: Observation) -> tuple[str, JSON | None]:
    """The name and arguments of a decision that writes an action taking arguments with a
    JSON object after its name (`report {"occupied": 1}`: bounded's extension, module
    docstring); `(written, None)` for any other decision, read whole as the name."""
    at = written.find("{")
    if at <= 0:
        return written, None
    name = written[:at].rstrip()
    action = next((a for a in obs.legal if a.id.upper() == name.upper()), None)
    if action is None or not action.schema_:
        return written, None
    try:
        args = json.loads(written[at:])
    except ValueError:
        return written, None
    return (name, args) if isinstance(args, dict) else (written, None)


@dataclass
class CosReading:
    """A reply's decisions as CoS reads them."""

    section: bool
    """Whether the reply has a `Decisions:` section."""
    names: list[str] = field(default_factory=list)
    """The decision names as written."""
    actions: list[Action] = field(default_factory=list)
    """The action each name is read as, in order (repeats kept)."""
    near_misses: list[JSON] = field(default_factory=list)
    """`{"written": ..., "read_as": ...}` for each name read as its nearest action."""
    invalid: list[str] = field(default_factory=list)
    """Names that could not be read as any action (no legal action)."""
    errors: list[str] = field(default_factory=list)
    """Problems of names read as an action that cannot run (one whose args are required)."""
    dropped: int = 0
    """Decisions written beyond the number kept (read, not run)."""

    @property
    def problem(self) -> str | None:
        """Why the reply has no decision to run, or None where it has one."""
        if self.actions:
            return None
        if not self.section:
            return f"reply has no {DECISIONS_HEADING} section"
        if not self.names:
            return f"the {DECISIONS_HEADING} section holds no numbered decision (0: <ACTION NAME>)"
        return "; ".join(self.errors) or NEAREST_NEEDS_LEGAL


def read_decisions(text: str, obs: Observation, keep: int | None = None) -> CosReading:
    """A reply's decisions, read by CoS's rule (module docstring) against `obs.legal`: the
    first `keep` of them (None: all, as the reference), the others counted as dropped."""
    names = decision_names(text)
    reading = CosReading(section=names is not None, names=names or [])
    kept = reading.names if keep is None else reading.names[:keep]
    reading.dropped = len(reading.names) - len(kept)
    for written in kept:
        name, args = args_after_name(written, obs)
        try:
            action = nearest_legal(name, obs)
            resolved = resolve_action({"id": action.id, "args": args or {}}, obs)
        except NotLegalError:
            reading.invalid.append(clip(written))
            continue
        except ValueError as exc:
            reading.errors.append(clip(str(exc)))
            continue
        if action.id.upper() != name.upper():
            reading.near_misses.append({"written": clip(written), "read_as": action.id})
        reading.actions.append(resolved)
    return reading


def analysis_before_decisions(text: str) -> str:
    """The prose before the `Decisions:` section (the whole reply where it has none)."""
    return text.partition(DECISIONS_HEADING)[0].strip()


def note_reading(extra: JSON, reading: CosReading) -> None:
    """Record on a decision's `extra` what reading the reply involved: near misses, and
    decisions written beyond those kept (`decisions_dropped`)."""
    if reading.near_misses:
        extra["near_misses"] = reading.near_misses
    if reading.dropped:
        extra["decisions_dropped"] = reading.dropped


__all__ = [
    "DECISIONS_HEADING",
    "CosReading",
    "analysis_before_decisions",
    "args_after_name",
    "decision_names",
    "decisions_section",
    "nearest_legal",
    "note_reading",
    "read_decisions",
]
