"""bounded inside inspect_ai (`pip install bounded[inspect]`): every environment as an
inspect `Task`, every contract as a `Solver` that plays the episode through inspect's own
model API, the environment's outcome as a `Scorer`.

    inspect eval src/bounded/inspect_tasks/tasks.py@warehouse --model ollama/llama3.2 -T horizon=10

Each sample is one game (a seed and the environment's options); its metadata holds the
run's outcome and prompt tokens per layer, and the log opens in `inspect view`.
"""

from bounded.inspect_tasks._model import InspectModel, SchemaForm
from bounded.inspect_tasks._scorer import outcome_scorer
from bounded.inspect_tasks._solver import (
    bounded_solver,
    contract_solver,
    episodic_solver,
    state_solver,
    summary_solver,
    transcript_solver,
    typed_solver,
)
from bounded.inspect_tasks.tasks import ENVIRONMENT_TASKS, bounded_task, environment_task

globals().update(ENVIRONMENT_TASKS)  # each environment's task: `bounded.inspect_tasks.warehouse`

__all__ = [
    "ENVIRONMENT_TASKS",
    "InspectModel",
    "SchemaForm",
    "bounded_solver",
    "bounded_task",
    "contract_solver",
    "environment_task",
    "episodic_solver",
    "outcome_scorer",
    "state_solver",
    "summary_solver",
    "transcript_solver",
    "typed_solver",
    *ENVIRONMENT_TASKS,
]
