"""A `paged` game killed after (or during) a decision that searched its archive, resumed:
its memory, its search results and every later decision are those of the game never
killed."""

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.archive.progress import checkpoints
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.runner.build import build_game, runner_for
from bounded.runner.resume import claim
from bounded.runner.spec import GameSpec

SEARCH_AT = (12, 20)
"""The warehouse events whose decision searches the archive."""

SPEC = GameSpec(env="warehouse", env_options={"horizon": 30}, contract="paged", seed=3,
                contract_config={"queue_tokens": 200}, model="scripted:minimal")  # fmt: skip


def searcher(messages, constraint):
    """The schema filler, except that it searches the archive at the `SEARCH_AT` events
    (a query naming the event's shelf) and, asked again, reports as occupied the number of
    archived turns the results show."""
    answer = minimal_instance(constraint)
    last = messages[-1]["content"]
    if "memory" in constraint["properties"]:
        event = next((n for n in SEARCH_AT if f"Event {n} of" in last), None)
        if event is not None:
            answer["memory"] = [{"op": "search", "query": f"STORE shelf {event % 4 + 1}"}]
        return answer
    answer["action"]["args"]["occupied"] = last.count("you answered:")
    return answer


def searching_model():
    return ScriptedModel(searcher, id="scripted:searcher")


PLAYER = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, sys.argv[4])
    from test_paged_resume import SPEC, searching_model
    from bounded.archive import Archive
    from bounded.runner.build import build_game, runner_for

    archive, where, event = sys.argv[1], sys.argv[2], int(sys.argv[3])
    model = searching_model()
    answer = model.complete

    def complete(messages, **kwargs):
        again = "memory" not in kwargs["constraint"]["properties"]
        if where == "search-call" and again and f"Event {event} of" in messages[-3]["content"]:
            os.kill(os.getpid(), signal.SIGKILL)  # inside the search's second call
        return answer(messages, **kwargs)

    def observer(record, obs):
        if where == "after-search" and "search" in record.info:
            os.kill(os.getpid(), signal.SIGKILL)  # just after the searching decision
    model.complete = complete
    game = build_game(SPEC, model=model)
    with Archive(archive) as store:
        runner_for(game, archive=store, observer=observer).execute()
    """
)


def played(archive_path, resumption=None):
    """Play SPEC (or continue a resumption) into the archive; the contract's memory after
    each decision, by decision count."""
    game = build_game(SPEC, model=searching_model())
    memory = {}

    def observer(record, obs):
        memory[record.index + 1] = json.loads(json.dumps(game.contract.memory_snapshot()))

    with Archive(archive_path) as archive:
        if resumption is not None:
            resumption = claim(archive, resumption)
        run = runner_for(game, archive=archive, observer=observer).execute(resume=resumption)
    return run, memory


def comparable(record):
    data = record.model_dump(exclude={"latency_s", "run_id"})
    for call in [data["completion"], *data["extra_completions"]]:
        if call:
            call.pop("latency_s")
    return data


@pytest.mark.parametrize(("where", "event"), [("after-search", 12), ("search-call", 20)])
def test_a_paged_game_killed_at_an_archive_search_resumes_as_if_never_killed(
    tmp_path, where, event
):
    whole, memory = played(tmp_path / "whole.sqlite")
    with Archive(tmp_path / "whole.sqlite") as archive:
        expected = archive.decisions(whole.run_id)
    searches = [r for r in expected if "search" in r.info]
    assert whole.status == "completed" and len(searches) == len(SEARCH_AT)
    assert all(r.info["search"]["hits"] and r.info["search"]["asked_again"] for r in searches)
    assert [r.actions[0].args["occupied"] for r in searches] == [3, 3]

    killed_path = tmp_path / "killed.sqlite"
    script = tmp_path / "player.py"
    script.write_text(PLAYER)
    here = str(Path(__file__).parent)
    process = subprocess.run(
        [sys.executable, str(script), str(killed_path), where, str(event), here],
        capture_output=True,
        timeout=120,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr.decode()[-2000:]
    searched = searches[SEARCH_AT.index(event)].index
    with Archive(killed_path) as archive:
        (killed,) = archive.runs()
        point = checkpoints(archive)[killed.run_id]
    assert killed.decisions == (searched + 1 if where == "after-search" else searched)
    assert point.memory == memory[killed.decisions]

    resumed, memory_after = played(killed_path, killed.run_id)
    assert resumed.status == "completed" and resumed.store_hashes == whole.store_hashes
    assert (resumed.decisions, resumed.model_calls) == (whole.decisions, whole.model_calls)
    assert memory_after == {n: memory[n] for n in memory if n > killed.decisions}
    with Archive(killed_path) as archive:
        got = archive.decisions(killed.run_id)
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    results = [next(s.text for s in r.segments if s.layer == "archive") for r in searches]
    assert results == [next(s.text for s in got[r.index].segments if s.layer == "archive")
                       for r in searches]  # fmt: skip
