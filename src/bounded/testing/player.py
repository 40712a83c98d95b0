"""A reply that plays: the fake endpoint's answer naming a legal action, for any environment.

A request with a schema (`response_format` `json_schema`, or llama.cpp's `json_object` with a
`schema`) is answered with the smallest instance of that schema, choosing at each `enum` and
`anyOf` the first branch (`first`) or one drawn at random (`random`); the reply schemas name
the legal actions in such choices (`bounded.contracts.replies.reading.action_schema`), so
the instance names a legal action with valid arguments.

A request without one (`json` or `text` reply mode) is read as the model reads it: the legal
actions are the last `Legal actions:` list of its messages (every contract renders them so,
`bounded.contracts._render.render_legal`, but Chain of Summarization, whose prompt holds an
`Action dictionary` of `<NAME>` lines), or, under an environment's BALROG presentation,
which lists none, the actions its BALROG instruction prompt describes (`name: what it
does`, one a line), and the reply is written in the format its
closing instruction asks for (a JSON object, a `<decision>` tag, a ```json block,
`<ACTION NAME>` tags, or one of BALROG's agents' forms). Where every listed action takes
arguments (the warehouse's `report`), it is given arguments of the types the list names
(0, "", false, [], {}), in every form but BALROG's, which cannot carry them.

`random` draws from a generator seeded by the seed and the request itself, so the same
request gets the same reply whatever order concurrent requests arrive in: same seed, same
game.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

PlayMode = Literal["first", "random"]
PLAY_MODES: tuple[str, ...] = get_args(PlayMode)

LEGAL_HEADER = "Legal actions:"
DICTIONARY_HEADER = "Action dictionary (executable now):"
"""Where Chain of Summarization's prompt lists the legal actions, one `<NAME>` a line."""
BALROG_ACTIONS_HEADER = "followed by a short description of each action:"
"""Where BALROG's instruction prompts start their list of actions."""
LISTED_ARG = re.compile(r"(\w+)(?:: | \()(\w+)")
"""One argument as the legal list (`occupied: integer`) or the dictionary
(`occupied (integer)`) writes it."""
KEYS = re.compile(r"with the keys ((?:\"[^\"]+\"(?:, )?)+)")
ARGS = re.compile(r" \(args: [^)]*\)$")
BALROG_LETTERS = re.compile(r"[^a-zA-Z\s:]")


@dataclass(frozen=True)
class Listed:
    """One legal action as a prompt lists it."""

    id: str
    label: str
    takes_args: bool
    arg_types: tuple[tuple[str, str], ...] = ()
    """Each argument's name and JSON type, as the prompt lists them."""

    def args(self) -> dict[str, Any]:
        """Arguments of the listed types (0, "", false, [], {}): a reply can name it."""
        return {name: instance({"type": kind}, Chooser("first", 0, {})) for name, kind in
                self.arg_types}  # fmt: skip


class Chooser:
    """Picks among options: always the first, or at random from the request's own seed."""

    def __init__(self, mode: PlayMode, seed: int, request: Mapping[str, Any]) -> None:
        self.mode = mode
        digest = hashlib.sha256(
            f"{seed}:{json.dumps(request, sort_keys=True, default=str)}".encode()
        ).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))

    def pick(self, options: Sequence[Any]) -> Any:
        return options[0] if self.mode == "first" else self.rng.choice(list(options))


def request_schema(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The reply schema a request sends, in either form; None when it sends none."""
    form = body.get("response_format")
    if not isinstance(form, Mapping):
        return None
    if form.get("type") == "json_schema":
        schema = (form.get("json_schema") or {}).get("schema")
    else:
        schema = form.get("schema")
    return schema if isinstance(schema, Mapping) else None


def instance(schema: Mapping[str, Any], choose: Chooser) -> Any:
    """The smallest value valid under `schema`, choosing at each enum and anyOf."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return choose.pick(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return instance(choose.pick(schema[key]), choose)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: instance(properties[name], choose) for name in schema.get("required", [])}
    if kind == "array":
        items = schema.get("items", {})
        return [instance(items, choose) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "string":
        return "x" * int(schema.get("minLength", 0))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return int(low) + (1 if "exclusiveMinimum" in schema else 0)
    if kind == "boolean":
        return False
    return None


NAIVE_ASK = "output one of the above actions at a time and no other text"
"""Words of BALROG's naive agent's closing instruction: the reply is the action alone."""


def message_texts(body: Mapping[str, Any]) -> list[str]:
    texts = []
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, str):
            texts.append(content)
    return texts


def listed_actions(texts: Sequence[str]) -> list[Listed]:
    """The last `Legal actions:` list of the messages, else the last action dictionary of
    Chain of Summarization's prompt, else the actions a BALROG instruction prompt describes
    (none: [])."""
    for text in reversed(texts):
        at = text.rfind(LEGAL_HEADER)
        if at >= 0:
            return parse_list(text[at + len(LEGAL_HEADER) :].splitlines())
        at = text.rfind(DICTIONARY_HEADER)
        if at >= 0:
            return parse_dictionary(text[at + len(DICTIONARY_HEADER) :].splitlines())
    return balrog_actions(texts)


def parse_dictionary(lines: Sequence[str]) -> list[Listed]:
    """`<NAME>` lines (` args: ...` after an action that takes some), up to the first other."""
    found = []
    for line in lines:
        name, takes = line.strip(), False
        if not name:
            continue
        types: tuple[tuple[str, str], ...] = ()
        if " args: " in name:
            name, listed = name.split(" args: ", 1)
            takes, types = True, tuple(LISTED_ARG.findall(listed))
        if not (name.startswith("<") and name.endswith(">")):
            break
        found.append(Listed(name[1:-1], "", takes, types))
    return found


def balrog_actions(texts: Sequence[str]) -> list[Listed]:
    """The actions of a BALROG instruction prompt: `name: what it does` lines joined by
    commas, the last ending in a full stop, after `BALROG_ACTIONS_HEADER`."""
    for text in texts:
        at = text.find(BALROG_ACTIONS_HEADER)
        if at < 0:
            continue
        block = text[at + len(BALROG_ACTIONS_HEADER) :].strip("\n").split("\n\n")[0]
        found = []
        for line in block.splitlines():
            name, colon, label = line.partition(": ")
            if colon:
                found.append(Listed(name.strip(), label.rstrip(",.").strip(), False))
        return found
    return []


def parse_list(lines: Sequence[str]) -> list[Listed]:
    found = []
    for line in lines:
        if not line.strip():
            continue
        if not line.startswith("- "):
            break
        entry = line[2:]
        if entry.startswith("... "):
            continue
        listed = ARGS.search(entry)
        types = tuple(LISTED_ARG.findall(listed.group(0)[len(" (args: ") :])) if listed else ()
        entry = ARGS.sub("", entry)
        action_id, _, label = entry.partition(": ")
        found.append(Listed(action_id.strip(), label.strip(), listed is not None, types))
    return found


def balrog_name(action: Listed) -> str:
    """The name a BALROG reply can give: its id, else its label, if letters keep it whole."""
    for name in (action.id, action.label):
        if name and BALROG_LETTERS.sub("", name) == name:
            return name
    return action.id


def object_reply(instruction: str, action: Listed, many: bool) -> dict[str, Any]:
    """The reply object the instruction's keys ask for, naming `action`."""
    found = KEYS.findall(instruction)
    keys = re.findall(r'"([^"]+)"', found[-1]) if found else ["action"]
    named: dict[str, Any] = {"id": action.id}
    if action.takes_args:
        named["args"] = action.args()
    reply: dict[str, Any] = {}
    for key in keys:
        if key == "action":
            reply[key] = named
        elif key == "actions" or key == "decisions":
            reply[key] = [named]
        elif key == "reasoning":
            reply[key] = ""
        else:
            reply[key] = {}
    if not {"action", "actions", "decisions"} & set(reply):
        reply["actions" if many else "action"] = [named] if many else named
    return reply


def text_reply(texts: Sequence[str], choose: Chooser) -> str | None:
    """A reply naming a listed legal action in the format the closing instruction asks for
    (an action without arguments where one is listed, else one whose argument types are
    listed, with arguments of those types, in a form that can give them); None when the
    messages list no action a reply can name."""
    listed = listed_actions(texts)
    plain = [action for action in listed if not action.takes_args]
    typed = [action for action in listed if action.arg_types]
    last = "\n".join(texts)
    if not plain and not (typed and not balrog_form(texts, last)):
        return None
    action = choose.pick(plain or typed)
    if '"decisions" (the list of <ACTION NAME>)' in last:
        named = {"id": action.id, "args": action.args()} if action.takes_args else None
        return json.dumps({"decisions": [named or f"<{action.id}>"]})
    if "<|ACTION|>" in last:
        return f"<|ACTION|>{balrog_name(action)}<|END|>"
    if "ACTION: <action>" in last:
        return f"ACTION: {balrog_name(action)}"
    if texts[-1].rstrip().endswith("Action:") or NAIVE_ASK in texts[-1]:
        return balrog_name(action)
    if "<ACTION NAME>" in last:  # as CoS's extractor reads them (its args: bounded's form)
        args = f" {json.dumps(action.args())}" if action.takes_args else ""
        return f"Decisions:\n0: <{action.id}{args}>"
    reply = json.dumps(object_reply(last, action, "You may give up to" in last))
    if "<decision>" in last:
        return f"<decision>{reply}</decision>"
    if "```json" in last:
        return f"```json\n{reply}\n```"
    return reply


def balrog_form(texts: Sequence[str], last: str) -> bool:
    """Whether the closing instruction asks for one of BALROG's agents' forms (an action
    alone, by name: no arguments)."""
    asks = "<|ACTION|>" in last or "ACTION: <action>" in last or NAIVE_ASK in texts[-1]
    return asks or texts[-1].rstrip().endswith("Action:")


def play(body: Mapping[str, Any], mode: PlayMode, seed: int = 0) -> str | None:
    """The content of a reply that names a legal action of `body`'s request (None: the
    request shows none)."""
    choose = Chooser(mode, seed, body)
    schema = request_schema(body)
    if schema is not None:
        return json.dumps(instance(schema, choose))
    return text_reply(message_texts(body), choose)


__all__ = ["PLAY_MODES", "Chooser", "PlayMode", "instance", "listed_actions", "play"]
