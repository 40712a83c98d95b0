"""Build the TextWorld game pool BALROG plays, as bounded ships it.

BALROG plays the 75 games Intelligent Go-Explore generated (25 per task, in
`textworld/tw_games/<task>/` of github.com/conglu1997/intelligent-go-explore, MIT). The
cooking games are Z-machine stories (`.z8`), shipped as they are; the treasure hunts and
coin collectors are Glulx stories (`.ulx`), which TextWorld 1.7 no longer plays, so each
is compiled to `.z8` from IGE's own Inform 7 source beside it (`.ni`) with the Inform 7
in TextWorld's wheel. Each game keeps IGE's `.json` (TextWorld's game description).

    python scripts/build_textworld_pool.py /path/to/intelligent-go-explore --commit SHA

writes `src/bounded/envs/textworld/data/balrog_pool.tar.xz` (the games, under
`<task>/<name>.z8|.json`) and `balrog_pool.json` (per task the games in BALROG's order,
`sorted(glob("*.ulx")) + sorted(glob("*.z8"))`, each with its original format).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import tarfile
import tempfile
from pathlib import Path

from textworld.generator.inform7.world2inform7 import compile_inform7_game

from bounded.envs.textworld.pool import POOL_ARCHIVE, POOL_MANIFEST, POOL_TASKS


def pool_games(task_dir: Path) -> list[Path]:
    """The task's games in the order BALROG's `TextWorldFactory` registers them."""
    return sorted(task_dir.glob("*.ulx")) + sorted(task_dir.glob("*.z8"))


def story(game: Path, work: Path) -> bytes:
    """The game as a `.z8` story: as shipped, or compiled from its Inform 7 source."""
    if game.suffix == ".z8":
        return game.read_bytes()
    target = work / (game.stem + ".z8")
    compile_inform7_game(game.with_suffix(".ni").read_text(), str(target))
    return target.read_bytes()


def add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    archive.addfile(info, io.BytesIO(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ige", type=Path, help="a work tree of intelligent-go-explore")
    parser.add_argument("--commit", required=True, help="its commit (recorded)")
    args = parser.parse_args()
    root = args.ige / "textworld" / "tw_games"
    manifest: dict = {"source": "github.com/conglu1997/intelligent-go-explore",
                      "commit": args.commit, "tasks": {}}  # fmt: skip
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as folder, tarfile.open(fileobj=buffer, mode="w") as tar:
        for task in POOL_TASKS:
            games = pool_games(root / task)
            manifest["tasks"][task] = [{"name": g.stem, "format": g.suffix[1:]} for g in games]
            for game in games:
                add(tar, f"{task}/{game.stem}.z8", story(game, Path(folder)))
                add(tar, f"{task}/{game.stem}.json", game.with_suffix(".json").read_bytes())
                print(task, game.name, flush=True)
    packed = lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME)
    POOL_ARCHIVE.write_bytes(packed)
    manifest["sha256"] = hashlib.sha256(packed).hexdigest()
    POOL_MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    print(POOL_ARCHIVE, len(packed), "bytes")


if __name__ == "__main__":
    main()
