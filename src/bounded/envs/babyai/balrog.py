"""BabyAI as BALROG shows it (`presentation="balrog"`), read at BALROG commit af7d1f1
(`balrog/environments/babyai_text/`) and its Minigrid fork (commit cf73dd1,
`MiniGridEnv.gen_graph`): BALROG's instruction prompt and action descriptions, and the
observation text, the fork's descriptions of the 7 x 7 egocentric view with their
`You see ` removed, one a line:

- `You carry a red ball` first when carrying;
- the nearest wall straight ahead, to the left and to the right (`a wall 4 steps
  forward`), unless something else stands before it; unseen cells are looked past;
- every object and door, column by column from the left, each from the farthest row:
  `a red ball 2 steps left and 1 step forward`, doors with their state (`a open blue
  door 1 step right`, the fork's words).

BALROG's BabyAI has no short-term context.
"""

from __future__ import annotations

from typing import Any

from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT

ACTION_DESCRIPTIONS: dict[str, str] = {
    "turn left": "turn to the left",
    "turn right": "turn to the right",
    "go forward": "take one step forward",
    "pick up": "pick up the object below you",
    "drop": "drop the object that you are holding",
    "toggle": "manipulate the object in front of you",
}
"""BALROG's BabyAI vocabulary in its order (minigrid's action index = position)."""

INSTRUCTION_PROMPT = """\
You are an agent playing a simple navigation game. Your goal is to {mission}. The \
following are the possible actions you can take in the game, followed by a short \
description of each action:

{actions}.

In a moment I will present you an observation.

Tips:
- Once the desired object you want to interact or pickup in front of you, you can use \
the 'toggle' action to interact with it.
- It doesn't make sense to repeat the same action over and over if the observation \
doesn't change.

PLAY!"""

UNSEEN, EMPTY, WALL, DOOR = 0, 1, 2, 4
DOOR_STATES = ("open", "closed", "locked")


def instruction_prompt(mission: str) -> str:
    """BALROG's BabyAI instruction prompt for a mission (`get_instruction_prompt`)."""
    actions = ",\n".join(f"{name}: {text}" for name, text in ACTION_DESCRIPTIONS.items())
    return INSTRUCTION_PROMPT.format(mission=mission, actions=actions)


def _steps(count: int, word: str) -> str:
    return f"{count} step{'s' if count > 1 else ''} {word}"


def _wall(image: Any, cells: list[tuple[int, int]], word: str, origin: tuple[int, int]) -> str:
    """The wall along a line of cells, if nothing but unseen or empty cells precede it."""
    for x, y in cells:
        kind = int(image[x][y][0])
        if kind in (UNSEEN, EMPTY):
            continue
        if kind == WALL:
            return f"a wall {_steps(abs(x - origin[0]) + abs(y - origin[1]), word)}"
        return ""
    return ""


def _walls(image: Any, ax: int, ay: int) -> list[str]:
    lines = [
        _wall(image, [(ax, y) for y in range(ay - 1, -1, -1)], "forward", (ax, ay)),
        _wall(image, [(x, ay) for x in range(ax - 1, -1, -1)], "left", (ax, ay)),
        _wall(image, [(x, ay) for x in range(ax + 1, len(image))], "right", (ax, ay)),
    ]
    return [line for line in lines if line]


def _where(dx: int, forward: int) -> str:
    if dx == 0:
        return _steps(forward, "forward")
    side = _steps(abs(dx), "right" if dx > 0 else "left")
    return side if forward == 0 else f"{side} and {_steps(forward, 'forward')}"


def _thing(cell: Any) -> str:
    kind, color, state = (int(v) for v in cell)
    name = f"{IDX_TO_COLOR[color]} {IDX_TO_OBJECT[kind]}"
    return f"a {DOOR_STATES[state]} {name}" if kind == DOOR else f"a {name}"


def observation_text(image: Any, carrying: Any) -> str:
    """BALROG's BabyAI text for minigrid's encoded view (`gen_obs()["image"]`, the agent
    at the bottom middle) and what the agent carries."""
    width, height = len(image), len(image[0])
    ax, ay = width // 2, height - 1
    lines = [f"You carry a {carrying.color} {carrying.type}"] if carrying is not None else []
    lines += _walls(image, ax, ay)
    for x in range(width):
        for y in range(height):
            if int(image[x][y][0]) in (UNSEEN, EMPTY, WALL) or (x, y) == (ax, ay):
                continue
            lines.append(f"{_thing(image[x][y])} {_where(x - ax, ay - y)}")
    return "\n".join(lines)


__all__ = ["ACTION_DESCRIPTIONS", "instruction_prompt", "observation_text"]
