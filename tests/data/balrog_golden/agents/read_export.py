"""BALROG's own resume and summariser on a folder `bounded export --format balrog` wrote
(one agent's folder, `<tag>/<model>/`). Not run by the tests: it needs BALROG's source and
the stack of README.md here. Run it with that environment's Python:

    PYTHONPATH=/path/to/BALROG python read_export.py FOLDER --config /path/to/config.yaml \
        --task babyai=BabyAI-MixedTrainLocal-v0/goto --task textworld=coin_collector \
        --episodes 3

It builds BALROG's `EvaluatorManager` on the folder (which skips every episode whose file
exists: BALROG's resume) and prints the episodes it would still play, then runs BALROG's
`collect_and_summarize_results` on it and prints the summary. It writes BALROG's summary
files into the folder: run it on a copy.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from balrog.evaluator import EvaluatorManager
from balrog.utils import collect_and_summarize_results
from omegaconf import OmegaConf


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--task", action="append", required=True, help="ENV=TASK")
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    config = OmegaConf.load(args.config)
    tasks: dict[str, list[str]] = {}
    for item in args.task:
        env, task = item.split("=", 1)
        tasks.setdefault(env, []).append(task)
    config.envs.names = "-".join(tasks)
    for env, names in tasks.items():
        config.tasks[f"{env}_tasks"] = names
        config.eval.num_episodes[env] = args.episodes
    manager = EvaluatorManager(config, output_dir=str(args.folder))
    print("left to play:", manager.tasks)
    summary = collect_and_summarize_results(str(args.folder))
    shown = ("average_progress", "standard_error", "environments", "agent")
    print(json.dumps({key: summary[key] for key in shown}, indent=1))


if __name__ == "__main__":
    main()
