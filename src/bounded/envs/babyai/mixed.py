"""BALROG's BabyAI levels: `BabyAI-MixedTrainLocal-v0` as BALROG's Minigrid fork
(github.com/BartekCupial/Minigrid, commit cf73dd1, `mixed_seq_levels.py`, after
BabyAI-Text) generates it, one instruction kind per task, with BALROG's `num_dists: 0`.

The fork is not on PyPI; this is our own generation on PyPI minigrid's `LevelGen`, drawing
from the level's random stream in the fork's order, so that a seed gives the fork's level
(checked against levels the fork generated: `tests/data/balrog_golden/babyai/`):

- `goto` / `pickup`: one 8 x 8 room, the agent, then `num_dists + 1` objects (keys, balls,
  boxes), the target drawn among them;
- `putnext` / `pick_up_seq_go_to`: the same with `num_dists + 2` objects, two drawn (the
  second drawn again while it matches the first, unless two objects match it); the
  sequence reads `pick up A, then go to B` or `go to B after you pick up A`;
- `open`: two rooms side by side, the door between them locked, its colour drawn from
  yellow, green, blue and purple, its key in the other room, the agent outside the
  locked room; the door named by colour or not.

A draw is redone (the room rebuilt, its door positions drawn again) while an object is
unreachable or the mission names a pair the fork keeps for testing (yellow box, red key,
red door, green ball, grey door). BALROG picks the kind by making levels until one has
it (the fork draws the kind when a level is made, from an unseeded stream); here the
kind is the task, and the seed alone decides the level, as in BALROG.
"""

from __future__ import annotations

from typing import Any

from minigrid.envs.babyai.core.levelgen import LevelGen
from minigrid.envs.babyai.core.verifier import (
    AfterInstr,
    BeforeInstr,
    GoToInstr,
    ObjDesc,
    OpenInstr,
    PickupInstr,
    PutNextInstr,
)

KINDS: dict[str, str] = {
    "goto": "goto",
    "pickup": "pickup",
    "open": "open",
    "putnext": "putnext",
    "pick_up_seq_go_to": "pick up seq go to",
}
"""BALROG's task names -> the fork's instruction kinds."""

HELD_OUT = ("yellow box", "red key", "red door", "green ball", "grey door")
"""Pairs the fork keeps out of training missions."""

DOOR_COLORS = ("yellow", "green", "blue", "purple")


class MixedTrainLocal(LevelGen):
    """One kind of `BabyAI-MixedTrainLocal-v0` (module docstring)."""

    def __init__(self, task: str, num_dists: int = 0, **kwargs: Any) -> None:
        kind = KINDS[task]
        super().__init__(
            room_size=8,
            num_rows=1,
            num_cols=2 if kind == "open" else 1,
            num_dists=num_dists,
            action_kinds=[kind],
            instr_kinds=["action", "seq1"],
            locations=False,
            unblocking=False,
            implicit_unlock=False,
            **kwargs,
        )

    def gen_mission(self) -> None:
        kind = self._rand_elem(self.action_kinds)
        build = {
            "open": self._open,
            "goto": self._goto,
            "pickup": self._pickup,
            "putnext": self._putnext,
            "pick up seq go to": self._pickup_then_goto,
        }[kind]
        while True:
            self._rebuild_rooms()
            reachable = build()
            if reachable and not self._held_out():
                return

    # -- the kinds (each returns whether every object is reachable) -------------------

    def _open(self) -> bool:
        color = self._rand_elem(DOOR_COLORS)
        self._add_locked_room(color)
        self.connect_all()
        for j in range(self.num_rows):
            for i in range(self.num_cols):
                if self.get_room(i, j) is not self.locked_room:
                    self.add_distractors(i, j, num_distractors=self.num_dists, all_unique=False)
        self.place_agent()
        while self.room_from_pos(*self.agent_pos) is self.locked_room:
            self.place_agent()
        reachable = bool(self.check_objs_reachable(raise_exc=False))
        self.instrs = OpenInstr(ObjDesc("door", self._rand_elem([None, color])))
        return reachable

    def _objects(self, count: int) -> tuple[list[Any], bool]:
        self.place_agent()
        objs = self.add_distractors(num_distractors=count, all_unique=False)
        return objs, bool(self.check_objs_reachable(raise_exc=False))

    def _not_door(self, objs: list[Any]) -> Any:
        obj = self._rand_elem(objs)
        while str(obj.type) == "door":
            obj = self._rand_elem(objs)
        return obj

    def _other(self, objs: list[Any], first: Any) -> Any:
        """A second object, drawn again while it looks like the first, unless another
        object looks like the first too."""
        second = self._rand_elem(objs)
        if (first.type, first.color) == (second.type, second.color):
            alike, _ = ObjDesc(first.type, first.color).find_matching_objs(self)
            if len(alike) < 2:
                while (first.type, first.color) == (second.type, second.color):
                    second = self._rand_elem(objs)
        return second

    def _goto(self) -> bool:
        objs, reachable = self._objects(self.num_dists + 1)
        obj = self._rand_elem(objs)
        self.instrs = GoToInstr(ObjDesc(obj.type, obj.color))
        return reachable

    def _pickup(self) -> bool:
        objs, reachable = self._objects(self.num_dists + 1)
        obj = self._not_door(objs)
        self.instrs = PickupInstr(ObjDesc(obj.type, obj.color))
        return reachable

    def _putnext(self) -> bool:
        objs, reachable = self._objects(self.num_dists + 2)
        moved = self._not_door(objs)
        fixed = self._other(objs, moved)
        self.instrs = PutNextInstr(
            ObjDesc(moved.type, moved.color), ObjDesc(fixed.type, fixed.color)
        )
        return reachable

    def _pickup_then_goto(self) -> bool:
        objs, reachable = self._objects(self.num_dists + 2)
        taken = self._not_door(objs)
        pickup = PickupInstr(ObjDesc(taken.type, taken.color))
        target = self._other(objs, taken)
        goto = GoToInstr(ObjDesc(target.type, target.color))
        if self._rand_elem(["Before", "After"]) == "Before":
            self.instrs = BeforeInstr(pickup, goto)
        else:
            self.instrs = AfterInstr(goto, pickup)
        return reachable

    # -- the rooms ------------------------------------------------------------------------

    def _held_out(self) -> bool:
        surface = self.instrs.surface(self)
        return any(pair in surface for pair in HELD_OUT)

    def _rebuild_rooms(self) -> None:
        """Empty rooms with their walls, and each inner wall's door position drawn again
        (right walls first, then bottom walls, room by room)."""
        self.grid.grid = [None for _ in range(self.width * self.height)]
        for j in range(self.num_rows):
            for i in range(self.num_cols):
                room = self.get_room(i, j)
                room.doors, room.door_pos, room.neighbors = [None] * 4, [None] * 4, [None] * 4
                room.locked, room.objs = False, []
                self.grid.wall_rect(*room.top, *room.size)
        for j in range(self.num_rows):
            for i in range(self.num_cols):
                self._draw_doors(i, j)
        self.agent_pos = (
            (self.num_cols // 2) * (self.room_size - 1) + (self.room_size // 2),
            (self.num_rows // 2) * (self.room_size - 1) + (self.room_size // 2),
        )
        self.agent_dir = 0

    def _draw_doors(self, i: int, j: int) -> None:
        room = self.get_room(i, j)
        (left, top), (width, height) = room.top, room.size
        right, bottom = left + width - 1, top + height - 1
        if i < self.num_cols - 1:
            room.neighbors[0] = self.get_room(i + 1, j)
            room.door_pos[0] = (right, self._rand_int(top + 1, bottom))
        if j < self.num_rows - 1:
            room.neighbors[1] = self.get_room(i, j + 1)
            room.door_pos[1] = (self._rand_int(left + 1, right), bottom)
        if i > 0:
            room.neighbors[2] = west = self.get_room(i - 1, j)
            room.door_pos[2] = west.door_pos[0]
        if j > 0:
            room.neighbors[3] = north = self.get_room(i, j - 1)
            room.door_pos[3] = north.door_pos[1]

    def _add_locked_room(self, color: str) -> None:
        """A locked door of this colour in a wall between two rooms (a room and a wall
        drawn until the wall is inner), and its key in another room."""
        while True:
            i, j = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows)
            door_idx = self._rand_int(0, 4)
            self.locked_room = self.get_room(i, j)
            if self.locked_room.neighbors[door_idx] is not None:
                break
        door, _ = self.add_door(i, j, door_idx, color=color, locked=True)
        while True:
            i, j = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows)
            if self.get_room(i, j) is not self.locked_room:
                self.add_object(i, j, "key", door.color)
                return


__all__ = ["KINDS", "MixedTrainLocal"]
