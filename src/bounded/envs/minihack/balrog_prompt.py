"""BALROG's MiniHack instruction prompt (`balrog/environments/minihack/__init__.py`,
BALROG commit af7d1f1): its action descriptions and goals, word for word."""

from __future__ import annotations

from collections.abc import Iterable

ACTION_HELP: dict[str, str] = {
    "north": "move north",
    "east": "move east",
    "south": "move south",
    "west": "move west",
    "northeast": "move northeast",
    "southeast": "move southeast",
    "southwest": "move southwest",
    "northwest": "move northwest",
    "far north": "move far north",
    "far east": "move far east",
    "far south": "move far south",
    "far west": "move far west",
    "far northeast": "move far northeast",
    "far southeast": "move far southeast",
    "far southwest": "move far southwest",
    "far northwest": "move far northwest",
    "up": "go up the stairs",
    "down": "go down the stairs",
    "wait": "rest one move while doing nothing",
    "more": "display more of the message",
    "apply": "apply (use) a tool",
    "close": "close an adjacent door",
    "open": "open an adjacent door",
    "eat": "eat something",
    "force": "force a lock",
    "kick": "kick an enemy or a locked door or chest",
    "loot": "loot a box on the floor",
    "pickup": "pick up things at the current location if there are any",
    "pray": "pray to the gods for help",
    "puton": "put on an accessory",
    "quaff": "quaff (drink) something",
    "search": "search for hidden doors and passages",
    "zap": "zap a wand",
}


def goal(task_id: str) -> str:
    name = task_id.lower()
    if "corridor" in name:
        return "Your goal is to explore the level and reach the stairs down"
    if "quest" in name:
        return (
            "Your goal is to explore the level, fight monsters, and navigate rooms and mazes "
            "to ultimately reach the stairs down."
        )
    if "boxoban" in name:
        return (
            "You are playing Boxoban, a box-pushing game inspired by Sokoban. Your goal is to "
            "push the boulders onto the fountains on the map. You can push the boulders by "
            "walking into them, as long as there are no obstacles behind them."
        )
    return "Your goal is to get as far as possible in the game."


def instruction_prompt(words: Iterable[str], task_id: str) -> str:
    """BALROG's `get_instruction_prompt(env, task)` for a task whose words are `words`."""
    actions = ",\n".join(f"{word}: {ACTION_HELP[word]}" for word in words)
    return (
        "You are an agent playing MiniHack. The following are the possible actions you can "
        "take in the game, followed by a short description of each action:\n\n"
        f"{actions}.\n\n"
        "In a moment I will present a history of actions and observations from the game.\n\n"
        "Tip: there is no point in outputting the same action over and over if nothing "
        f"changes.\n\n{goal(task_id)}\n\nPLAY!"
    )


__all__ = ["ACTION_HELP", "goal", "instruction_prompt"]
