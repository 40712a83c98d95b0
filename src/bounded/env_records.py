"""One record per environment: everything the rest of bounded needs to know about it.

An `EnvRecord` holds an environment's short name, Gymnasium id and lazy entry point, its
expert, whether attribution can replay its games, its BALROG task list, the one-action
step the step-protocol contracts play it at, its inspect task's parameters, a small game
for the conformance tests and whether it is thread-safe. What used to be kept in tables
beside each consumer is read from here: the environment registry and the CLI's list of
names (`bounded.envs`), attribution's experts, the BALROG table's environment names,
the contracts' one-action step, the inspect tasks and the conformance suite.

Our environments' records are below (strings only: reading them imports no engine). A
plugin adds one record: `register_record(EnvRecord(...))` in Python, or an installed
package's entry point in the `bounded.envs` group naming its record
(`"mine/Echo-v0" = "pkg.mod:ECHO_RECORD"`); an entry point naming an environment class
instead gets a record with that id as its name and nothing else declared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Literal

from bounded.core import ConfigError
from bounded.registry import load_target

ENTRY_POINT_GROUP = "bounded.envs"


@dataclass(frozen=True)
class BalrogTasks:
    """Where an environment stands in BALROG: its name there and its tasks."""

    env: str
    """BALROG's name of the environment (`nle`, `babyai`, ...)."""
    tasks: tuple[str, ...] = ()
    """BALROG's tasks on it (a run's task is its outcome's `task` or `level`)."""
    default_task: str = "default"
    """The task of a run whose outcome names none."""
    names: Mapping[str, str] = field(default_factory=dict)
    """A task's name in BALROG's config and results folders where it differs from
    bounded's (BabyAI's `goto` is BALROG's `BabyAI-MixedTrainLocal-v0/goto`)."""
    stats: tuple[str, ...] = ()
    """The fields of its `get_stats()` that BALROG's evaluator adds to an episode's file
    (`bounded.analysis.balrog.env_stats`: each written where the run's outcome has it)."""
    presentation: Mapping[str, Any] = field(default_factory=dict)
    """The environment options under which it shows what BALROG's own wrapper shows (its
    observation text, instruction prompt, action vocabulary, step limits and levels), which
    BALROG's agents play at unless a game's options say otherwise; empty: it has no such
    presentation."""


@dataclass(frozen=True)
class TaskOption:
    """An environment option offered as a parameter of the environment's inspect task."""

    name: str
    """The parameter (`-T name=...`)."""
    kind: Any = int
    """Its type, for the task's signature."""
    option: str = ""
    """The environment option it sets (default: the same name)."""
    default: Any = None
    """None: the environment's own default."""

    @property
    def key(self) -> str:
        return self.option or self.name


@dataclass(frozen=True)
class BankGame:
    """One game a bank recipe has an expert play."""

    options: Mapping[str, Any]
    """The environment's options (kept in the bank as the game's provenance)."""
    seed: int
    strategy: str
    """What the expert plays (the bank entries' strategy)."""
    expert: Callable[[Any], Any]
    """The game's expert, built from its environment (one that needs none ignores it)."""
    max_decisions: int = 100_000


@dataclass(frozen=True)
class BankPlan:
    """The games of one bank and which of them it keeps (`bounded.jobs.bank.build_bank`)."""

    games: Sequence[BankGame]
    meta: Mapping[str, Any]
    """The bank's provenance (its `meta`)."""
    keep: int | None = None
    """Games kept at most (None: every one that qualifies)."""
    stop_when_kept: bool = False
    """Whether play stops once `keep` games are kept."""
    rank: Callable[[Mapping[str, Any]], Any] | None = None
    """None: the wins are kept, in play order; else every game is ranked by this key of
    its outcome, best first, and the best `keep` are kept."""


@dataclass(frozen=True)
class BankRecipe:
    """How an environment's episodic bank is built, by `bounded bank NAME`."""

    plan: Callable[..., BankPlan]
    """The plan from the command's options: its parameters, annotated for typer, are the
    command's options (`--out` is added) and its docstring the command's help."""
    report: Callable[[Any, Sequence[Any], Any], str]
    """What the command prints: (the bank, every game played, the bank file) -> text."""


@dataclass(frozen=True)
class EnvRecord:
    """What bounded knows about one environment (the module docstring lists who reads it)."""

    name: str
    """The short name (`spire`), accepted wherever an environment is named."""
    env_id: str
    """The Gymnasium id (`bounded/Spire-v0`), under which its runs are archived."""
    entry_point: str | Callable[..., Any]
    """`"module:Class"` (imported on first use) or a class or factory."""
    summary: str = ""
    """One line: what the game is and what it scores (the inspect task's docstring)."""
    expert: str | Callable[..., Any] | None = None
    """Its scripted player (`"module:Class"` or a factory)."""
    expert_reads_env: bool = False
    """Whether the expert is built from the environment it plays (`Expert(env)`: it reads
    the game's own state); else it takes no arguments."""
    replay: Literal["seed", "refused"] = "seed"
    """How attribution rebuilds an archived game: `seed` (from its spec and seed, the
    recorded actions replayed) or `refused` (`replay_refusal` says why)."""
    replay_refusal: str = ""
    balrog: BalrogTasks | None = None
    one_action_step: Mapping[str, Any] = field(default_factory=dict)
    """The options of one one-action step (`bounded.contracts.step_protocol`); empty: the
    environment is played as it is."""
    thread_safe: bool = True
    """False for an environment wrapping a library with process-wide state."""
    task_options: tuple[TaskOption, ...] = ()
    default_contract: str = "typed"
    """The inspect task's contract unless told."""
    reply_tokens: int | None = None
    """The inspect task's reply token limit unless told (None: `GameSpec`'s default)."""
    test_options: Mapping[str, Any] | None = None
    """A small game for the conformance suite; None keeps it out of the suite."""
    test_steps: int = 20
    """Decisions the conformance suite plays per game."""
    requires: str = ""
    """`"module:function"` telling (True/False) whether it can run on this machine."""
    bank: str = ""
    """`"module:RECIPE"`, its `BankRecipe` (`bounded bank NAME`); empty: it has no bank."""
    commands: Mapping[str, str] = field(default_factory=dict)
    """Commands it adds to `bounded`: name -> `"module:function"`, a typer command function."""
    suite: str = ""
    """`"module:function"` playing its task suite where `bounded run NAME` plays one episode
    otherwise (the workbench's), called with `bounded run`'s settings; empty: none."""
    wins: bool = True
    """Whether its games are won in practice, so that a win rate says something; False
    where a victory is out of reach and BALROG reports progression only (NetHack's
    ascension, all 22 of Crafter's achievements): the report plots no win rate for it."""

    def __post_init__(self) -> None:
        if self.replay == "refused" and not self.replay_refusal:
            raise ConfigError(f"environment {self.name}: a refused replay needs its reason")

    def runs_here(self) -> bool:
        """Whether this machine can run it (`requires`)."""
        return not self.requires or bool(load_target(self.requires)())

    def portable(self) -> bool:
        """Whether another process can rebuild it from this record alone (its entry
        point and expert are import paths, not objects of this process)."""
        return isinstance(self.entry_point, str) and not callable(self.expert)


BALROG_PRESENTATION: Mapping[str, Any] = {"presentation": "balrog"}
"""The option of our environments that shows what BALROG's wrappers show."""
NLE_STATS = (
    "episode_return", "score", "depth", "gold", "experience_level", "time",
    "dlvl_list", "xplvl_list", "highest_achievement", "progression", "end_reason",
)  # fmt: skip
"""The fields of NLE's `get_stats()` in BALROG's episode files."""
NLE_STATS = (
    "episode_return", "score", "depth", "gold", "experience_level", "time",
    "dlvl_list", "xplvl_list", "highest_achievement", "progression", "end_reason",
)  # fmt: skip
"""The fields of NLE's `get_stats()` in BALROG's episode files."""
BABYAI_TASKS = ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to")
"""BALROG's BabyAI tasks, as bounded's BabyAI names its levels."""


def _env(name: str, env_class: str, **facts: Any) -> EnvRecord:
    """One of our environments: `bounded/<Class>-v0`, its engine in `bounded.envs.<name>`."""
    return EnvRecord(
        name=name,
        env_id=f"bounded/{env_class}-v0",
        entry_point=f"bounded.envs.{name}:{env_class}Env",
        **facts,
    )


BUILTIN_RECORDS: tuple[EnvRecord, ...] = (
    _env(
        "warehouse",
        "Warehouse",
        summary="The STORE/SHIP/WAIT inventory stream (score: accuracy of the reported counts).",
        expert="bounded.envs.warehouse:WarehouseExpert",
        task_options=(TaskOption("horizon"), TaskOption("shelves")),
        default_contract="state",
        test_options={"horizon": 12},
        test_steps=50,
    ),
    _env(
        "spire",
        "Spire",
        summary="The deck-building roguelike (score: floor reached; progress: floors of the acts).",
        expert="bounded.envs.spire:SpireExpert",
        task_options=(TaskOption("acts"), TaskOption("ascension")),
        reply_tokens=640,
        test_options={"acts": 1},
        test_steps=50,
        commands={"spire": "bounded.cli.spire:spire_command"},
    ),
    _env(
        "craft",
        "Craft",
        summary="The real-time-strategy macro game against the built-in AI.",
        expert="bounded.envs.craft:CraftExpert",
        one_action_step={"decision_interval": 2.0, "max_actions": 1},
        task_options=(TaskOption("level"), TaskOption("style", str)),
        default_contract="summary",
        test_options={"time_limit": 300},
        bank="bounded.envs.craft.bank:CRAFT_BANK",
    ),
    _env(
        "workbench",
        "Workbench",
        summary="Coding tasks in a sandbox directory, judged by their oracles.",
        expert="bounded.envs.workbench:WorkbenchExpert",
        expert_reads_env=True,
        replay="refused",
        replay_refusal="its tools run real processes in a sandbox directory, whose results a "
        "replay cannot promise to reproduce, and its expert is a script of replies",
        task_options=(TaskOption("task_name", str, option="task", default="all"),),
        default_contract="state",
        reply_tokens=2048,
        test_options={"task": "binary_format", "max_turns": 6},
        test_steps=8,
        requires="bounded.envs.workbench:sandbox_available",
        suite="bounded.cli.run:run_workbench",
    ),
    _env(
        "nethack",
        "NetHack",
        summary="NetHack through NLE (progress: BALROG's progression).",
        expert="bounded.envs.nethack:NetHackExpert",
        balrog=BalrogTasks(
            "nle",
            ("NetHackChallenge-v0",),
            default_task="NetHackChallenge-v0",
            stats=NLE_STATS,
            presentation=BALROG_PRESENTATION,
        ),
        task_options=(
            TaskOption("character", str),
            TaskOption("max_steps"),
            TaskOption("vocabulary", str),
            TaskOption("presentation", str),
        ),
        test_options={"max_steps": 40},
        test_steps=40,
        bank="bounded.envs.nethack.bank:NETHACK_BANK",
        wins=False,
    ),
    _env(
        "babyai",
        "BabyAI",
        summary="A BabyAI mission (progress: 1 when accomplished).",
        expert="bounded.envs.babyai:BabyAIExpert",
        expert_reads_env=True,
        balrog=BalrogTasks(
            "babyai",
            BABYAI_TASKS,
            stats=("mission", "progression"),
            presentation=BALROG_PRESENTATION,
            names={task: f"BabyAI-MixedTrainLocal-v0/{task}" for task in BABYAI_TASKS},
        ),
        task_options=(
            TaskOption("level", str),
            TaskOption("max_steps"),
            TaskOption("presentation", str),
        ),
        test_options={"max_steps": 30},
        test_steps=30,
        bank="bounded.envs.babyai.bank:BABYAI_BANK",
    ),
    _env(
        "crafter",
        "Crafter",
        summary="Crafter (progress: achievements unlocked / 22).",
        expert="bounded.envs.crafter:CrafterExpert",
        expert_reads_env=True,
        balrog=BalrogTasks(
            "crafter",
            ("default",),
            stats=("score", "progression", "achievements"),
            presentation=BALROG_PRESENTATION,
        ),
        task_options=(
            TaskOption("max_steps"),
            TaskOption("area"),
            TaskOption("view"),
            TaskOption("presentation", str),
        ),
        test_options={"max_steps": 60},
        test_steps=60,
        wins=False,
    ),
    _env(
        "textworld",
        "TextWorld",
        summary="A generated TextWorld game (progress: score / max score).",
        expert="bounded.envs.textworld:TextWorldExpert",
        expert_reads_env=True,
        balrog=BalrogTasks(
            "textworld",
            ("treasure_hunter", "the_cooking_game", "coin_collector"),
            stats=("progression",),
            presentation=BALROG_PRESENTATION,
        ),
        thread_safe=False,
        task_options=(
            TaskOption("game", str, option="task"),
            TaskOption("max_steps"),
            TaskOption("settings", dict[str, Any]),
            TaskOption("presentation", str),
            TaskOption("pool", str),
            TaskOption("game_choice", str),
        ),
        commands={"textworld-games": "bounded.cli.textworld:textworld_games"},
    ),
    _env(
        "minihack",
        "MiniHack",
        summary="A MiniHack task (progress: 1 when the stairs down are reached).",
        expert="bounded.envs.minihack:MiniHackExpert",
        balrog=BalrogTasks(
            "minihack",
            (
                "mazewalk-9x9",
                "mazewalk-15x15",
                "corridor-r3",
                "corridorbattle-dark",
                "quest-easy",
                "quest-medium",
            ),
            stats=("episode_return", "progression", "end_reason"),
            presentation=BALROG_PRESENTATION,
        ),
        task_options=(
            TaskOption("task", str),
            TaskOption("max_steps"),
            TaskOption("presentation", str),
        ),
        test_options={"task": "mazewalk-9x9", "max_steps": 30},
        test_steps=30,
    ),
)
"""Our environments. TextWorld's games are generated on disk first (its own tests make
them), so it has no small game for the conformance suite."""


class EnvCatalog:
    """Gymnasium id -> record: ours, those registered in this process, and installed
    plugins' (an entry point is loaded when its environment is first asked about)."""

    def __init__(self, records: tuple[EnvRecord, ...]) -> None:
        self._records: dict[str, EnvRecord] = {}
        self._builtin = {record.env_id for record in records}
        self._pending: dict[str, str] | None = None
        for record in records:
            self.register(record)

    def register(self, record: EnvRecord) -> None:
        clash = self.by_name(record.name)
        if clash is not None and clash.env_id != record.env_id:
            raise ConfigError(
                f"environment name {record.name!r} is taken by {clash.env_id}; "
                f"{record.env_id} needs another"
            )
        self._records[record.env_id] = record

    def _entry_points(self) -> dict[str, str]:
        """Installed plugins not loaded yet: Gymnasium id -> `module:Attr`."""
        if self._pending is None:
            self._pending = {
                point.name: point.value
                for point in entry_points(group=ENTRY_POINT_GROUP)
                if point.name not in self._records
            }
        return self._pending

    def _load_plugin(self, env_id: str) -> EnvRecord:
        target = self._entry_points().pop(env_id)
        loaded = load_target(target)
        if isinstance(loaded, EnvRecord):
            if loaded.env_id != env_id:
                raise ConfigError(
                    f"entry point {env_id!r} names the record of another id, {loaded.env_id}"
                )
            record = loaded
        else:
            record = EnvRecord(name=env_id, env_id=env_id, entry_point=target)
        self.register(record)
        return record

    def by_name(self, name: str) -> EnvRecord | None:
        return next((r for r in self._records.values() if r.name == name), None)

    def get(self, name: str) -> EnvRecord | None:
        """The record of a Gymnasium id or a short name; None for an unknown one."""
        if name in self._records:
            return self._records[name]
        if name in self._entry_points():
            return self._load_plugin(name)
        found = self.by_name(name)
        if found is None and self._entry_points():
            self.records()  # a plugin's short name is known once its record is loaded
            found = self.by_name(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def records(self) -> list[EnvRecord]:
        """Every record, installed plugins' loaded."""
        for env_id in list(self._entry_points()):
            self._load_plugin(env_id)
        return list(self._records.values())

    def names(self) -> list[str]:
        """Short names of the known records, then the ids of plugins not loaded yet."""
        return [r.name for r in self._records.values()] + sorted(self._entry_points())

    def snapshot(self) -> list[EnvRecord]:
        """Records registered at run time that another process can rebuild."""
        return [r for r in self._records.values() if r.env_id not in self._builtin and r.portable()]

    def restore(self, records: list[EnvRecord]) -> None:
        for record in records:
            if record.env_id not in self._records:
                self.register(record)


ENV_RECORDS = EnvCatalog(BUILTIN_RECORDS)
"""Every environment's record."""


def register_record(record: EnvRecord) -> None:
    """Add an environment's record (Gymnasium learns its id when `bounded.envs` builds it)."""
    ENV_RECORDS.register(record)


def env_record(name: str) -> EnvRecord | None:
    """The record of a short name or Gymnasium id, or None."""
    return ENV_RECORDS.get(name)


__all__ = [
    "BUILTIN_RECORDS",
    "ENV_RECORDS",
    "BalrogTasks",
    "BankGame",
    "BankPlan",
    "BankRecipe",
    "EnvCatalog",
    "EnvRecord",
    "TaskOption",
    "env_record",
    "register_record",
]
