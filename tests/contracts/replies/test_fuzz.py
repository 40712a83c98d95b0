"""Hostile model replies: any text a model can return is recorded and survived, by every
contract (transcript, state, summary, episodic, typed and its presets).

Generated replies (arbitrary text, near-JSON, deep nesting, huge strings, lone surrogates
raw and escaped, wrong types in every field) go through `contract.parse` (1,000 per
contract) and through a real episode loop (`run_episode` with a `ScriptedModel` returning
them and a real SQLite `Archive`: 1,000 per contract, as 20 games of 50 decisions), with
no crash and every decision archived. The cases found by hand are named tests below.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.replies.reading import MAX_JSON_DEPTH, json_depth, parse_decision, scrub
from bounded.contracts.state import MAX_STATE_CHARS, PatchRejected, StateContract, merge_patch
from bounded.contracts.typed.presets import TYPED_PRESETS
from bounded.core import Completion, Decision, DecisionRecord, Observation, StepResult
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.protocols import Contract, Env
from bounded.runner import run_episode
from bounded.testing import episode

PARSE_EXAMPLES = int(os.environ.get("FUZZ_N", 1_000))
LOOP_EXAMPLES = int(os.environ.get("FUZZ_GAMES", 20))
LOOP_DECISIONS = 50
"""20 games of 50 decisions: 1,000 replies per contract through the loop (4 games in the
quick tier, `pytest --quick`, which sets `FUZZ_GAMES`: tests/conftest.py)."""

WAREHOUSE_CONTRACTS = ("transcript", "state", "summary", "episodic", "rag", "reflexion", "paged")
TYPED_CONTRACTS = ("typed", *TYPED_PRESETS)

# -- generated replies --------------------------------------------------------------

FIELDS = (
    "reasoning", "action", "actions", "state_patch", "analysis", "suggestions", "decisions",
    "strategy", "args", "id",
)  # fmt: skip
"""Every field some contract reads from a reply (and two nested ones)."""

ID_POOL = (
    "report", "neow:0", "path:0", "play:Strike#1@0", "end", "proceed", "skip", "option:0",
    "pick:0:Steady Guard", "take:0:gold", "EMPTY ACTION", "<report>", "", "nope",
)  # fmt: skip
"""Ids legal in some warehouse or spire observation, and some never legal."""

LONE = "\ud800"
"""A lone surrogate: UTF-8, SQLite and JSON writers refuse it."""

surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
characters = st.characters() | surrogates
short_text = st.text(characters, max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**30, max_value=10**60)
    | st.floats()  # NaN and the infinities included: JSON cannot hold them
    | short_text
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(short_text, children, max_size=4)
    ),
    max_leaves=8,
)
action_ids = st.sampled_from(ID_POOL) | short_text
report_args = st.fixed_dictionaries(
    {"occupied": st.integers(-2, 10) | values, "shipped": st.integers(-2, 5) | values}
)
actions = (
    st.fixed_dictionaries({"id": action_ids}, optional={"args": report_args | values})
    | action_ids
    | values
)
valid_actions = st.fixed_dictionaries(
    {
        "id": st.just("report"),
        "args": st.fixed_dictionaries(
            {"occupied": st.integers(0, 8), "shipped": st.integers(0, 3)}
        ),
    }
) | st.sampled_from(ID_POOL[1:10])
valid_replies = st.fixed_dictionaries(
    {
        "reasoning": st.text(max_size=20),
        "analysis": st.text(max_size=20),
        "suggestions": st.text(max_size=20),
        "state_patch": st.dictionaries(
            st.sampled_from(["occupied", "shipped"]), st.integers(0, 3), max_size=2
        ),
        "action": valid_actions,
        "decisions": st.lists(valid_actions, min_size=1, max_size=3),
    }
)
"""Replies a contract accepts (on some observation): the fuzz must reach past parsing."""
reply_objects = st.fixed_dictionaries(
    {},
    optional={
        "reasoning": short_text | values,
        "action": actions,
        "actions": st.lists(actions, max_size=14) | values,
        "state_patch": st.dictionaries(short_text, values, max_size=5) | values,
        "analysis": short_text | values,
        "suggestions": short_text | values,
        "decisions": st.lists(actions, max_size=5) | values,
        "strategy": short_text | values,
    },
)


@st.composite
def encoded(draw: st.DrawFn, objects: st.SearchStrategy[Any] = reply_objects) -> str:
    """A reply object as a model might write it: bare, fenced or in prose; surrogates raw
    or escaped."""
    text = json.dumps(draw(objects), ensure_ascii=draw(st.booleans()))
    wrapping = draw(st.sampled_from(["{}", "```json\n{}\n```", "Sure! {} Done.", "{}{}"]))
    return wrapping.replace("{}", text, 1).replace("{}", "")


@st.composite
def near_json(draw: st.DrawFn) -> str:
    """A reply object broken by one edit: truncated, a character dropped or inserted."""
    text = draw(encoded())
    at = draw(st.integers(0, len(text)))
    edit = draw(st.sampled_from(["truncate", "drop", "insert"]))
    if edit == "truncate":
        return text[:at]
    if edit == "drop":
        return text[:at] + text[at + 1 :]
    return text[:at] + draw(st.sampled_from([*'{}[]",:\\', LONE])) + text[at:]


@st.composite
def deep(draw: st.DrawFn) -> str:
    """A field nested around the depth limit or far past it (up to 12,000 levels)."""
    depth = draw(st.integers(MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH + 3) | st.integers(1, 12_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    closed = draw(st.booleans())
    nested = opener * depth + "1" + (closer * depth if closed else "")
    return f'{{"{draw(st.sampled_from(FIELDS))}": {nested}}}'


@st.composite
def huge(draw: st.DrawFn, max_chars: int = 300_000) -> str:
    """A reply whose field holds one huge string (a surrogate's escape among the options)."""
    size = draw(st.integers(10_000, max_chars))
    unit = draw(st.sampled_from(["y", "é", "\\ud800", "\\u00e9", "{", '\\"']))
    field = draw(st.sampled_from(FIELDS))
    inner = f'"{unit * (size // len(unit))}"'
    if field in ("state_patch", "action", "args"):
        inner = f'{{"id": {inner}, "x": {inner}}}'
    return f'{{"{field}": {inner}, "action": {{"id": "report"}}}}'


def replies(max_chars: int = 300_000) -> st.SearchStrategy[str]:
    """Any reply: arbitrary text, a (fenced) reply object, near-JSON, deep, huge."""
    return st.one_of(
        st.text(characters, max_size=80),
        encoded(valid_replies),
        encoded(),
        near_json(),
        deep(),
        huge(max_chars),
        encoded(st.dictionaries(st.sampled_from(FIELDS), values, max_size=6)),
    )


# -- what every decision must satisfy -------------------------------------------------


def check_decision(decision: Decision, obs: Observation, reply: str) -> None:
    """A parsed decision that the runner can archive: legal actions, an object patch (or
    none) within the depth limit, the reasoning (kept whole) no longer than the reply it
    came from, no lone surrogate."""
    assert isinstance(decision, Decision)
    legal = {action.id for action in obs.legal}
    assert all(action.id in legal for action in decision.actions)
    assert decision.state_patch is None or isinstance(decision.state_patch, dict)
    assert json_depth(decision.state_patch) <= MAX_JSON_DEPTH
    assert len(decision.reasoning) <= len(reply)
    decision.model_dump_json().encode("utf-8")  # raises on a lone surrogate
    DecisionRecord(
        run_id="r", index=0, t=obs.t, kind=obs.kind, segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=decision.actions,
        reasoning=decision.reasoning, state_patch=decision.state_patch,
        parse_error=decision.parse_error, info=decision.extra,
    ).model_dump_json()  # fmt: skip


def reset_for(contract: Contract, env: Env, env_id: str) -> None:
    context = episode(
        env_id=env_id, instructions=env.instructions, state_schema=env.state_schema,
        initial_state=env.initial_state, knowledge=env.game_knowledge(),
    )  # fmt: skip
    contract.reset(context)


def build(name: str, store_root: Path, *, loop: bool = False) -> Contract:
    """A contract under test: summary calling the model every decision, episodic on an
    empty bank exploring every other decision (in the loop, every decision: a model call
    at each), typed presets with their own store directory, and in the loop a transcript
    with a prompt budget (it drops its oldest turns, as against a model's window). The
    warehouse contracts read JSON replies (`constrained`, what their checks expect); the
    typed presets read theirs in their paper's `text` mode (the decision tag)."""
    config: dict[str, Any] = {}
    if name == "summary":
        config = {"interval": 1}
    if name == "episodic":
        config = {"explore_every": 1 if loop else 2}
    if name == "transcript" and loop:
        config = {"max_prompt_tokens": 4096}
    if name in TYPED_PRESETS:
        config = {"store_dir": tempfile.mkdtemp(dir=store_root)}
    if name in WAREHOUSE_CONTRACTS:
        config["reply"] = "constrained"
    contract = make_contract(name, config)
    if name == "episodic":
        contract.use_bank(EpisodicBank.empty())  # type: ignore[attr-defined]
    return contract


def spire_observations(count: int = 40) -> list[Observation]:
    """Observations of every kind in the first decisions of a spire game (combat plans
    of up to 12 actions among them)."""
    env = make("spire")
    obs, _ = env.reset(seed=1)
    seen = [obs]
    while len(seen) < count and obs.legal:
        obs, *_ = env.step(obs.legal[:1])
        seen.append(obs)
    return [o for o in seen if o.legal]


@pytest.fixture
def loop_dir(tmp_path: Path) -> Iterator[Path]:
    """Where loop archives live: tmpfs when there is one (a real SQLite archive; fsync is
    not what these tests measure), removed afterwards; else the test's directory."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(dir=shm, prefix="bounded-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- parse level: 1,000 replies per contract ------------------------------------------


@pytest.mark.parametrize("name", WAREHOUSE_CONTRACTS)
def test_parse_survives_any_reply_on_warehouse(name, tmp_path):
    env = make("warehouse", horizon=10)
    obs, _ = env.reset(seed=1)
    contract = build(name, tmp_path)
    reset_for(contract, env, "bounded/Warehouse-v0")
    parsed = Counter()

    @settings(max_examples=PARSE_EXAMPLES)
    @given(replies())
    def parse(text):
        if parsed["replies"] % 50 == 0:  # a transcript's prompt holds every reply so far
            reset_for(contract, env, "bounded/Warehouse-v0")
        contract.assemble(obs)
        decision = contract.parse(Completion(text=text), obs)
        check_decision(decision, obs, text)
        contract.commit(obs, decision, StepResult())
        parsed["replies"] += 1
        parsed["errors"] += decision.parse_error is not None

    parse()
    assert parsed["replies"] >= PARSE_EXAMPLES
    assert 0 < parsed["errors"] < parsed["replies"]  # hostile, and yet some parse cleanly
    if isinstance(contract, StateContract):
        assert len(json.dumps(contract.state, separators=(",", ":"))) <= MAX_STATE_CHARS


def test_parse_survives_any_reply_on_spire_for_typed_and_every_preset(tmp_path):
    env = make("spire")
    env.reset(seed=1)
    observations = spire_observations()
    contracts = {name: build(name, tmp_path) for name in TYPED_CONTRACTS}
    for contract in contracts.values():
        reset_for(contract, env, "bounded/Spire-v0")
    parsed = Counter()

    @settings(max_examples=PARSE_EXAMPLES)
    @given(replies(), st.sampled_from(TYPED_CONTRACTS), st.sampled_from(observations))
    def parse(text, name, obs):
        contract = contracts[name]
        contract.assemble(obs)
        decision = contract.parse(Completion(text=text), obs)
        check_decision(decision, obs, text)
        contract.commit(obs, decision, StepResult())
        parsed[name] += 1

    parse()
    assert sum(parsed.values()) >= PARSE_EXAMPLES
    assert set(parsed) == set(TYPED_CONTRACTS)


# -- loop level: 1,000 replies per contract through run_episode -----------------------


def play_fuzzed_games(
    env_name: str, names: tuple[str, ...], archive_path: Path, store_root: Path
) -> Counter[str]:
    """20 games of 50 decisions whose every model reply is generated; checks each game
    completed and archived every decision with the model's text; returns counts."""
    counts: Counter[str] = Counter()
    env_options = {"horizon": LOOP_DECISIONS} if env_name == "warehouse" else {}

    @settings(max_examples=LOOP_EXAMPLES)
    @given(
        st.lists(replies(max_chars=16_000), min_size=LOOP_DECISIONS, max_size=LOOP_DECISIONS),
        st.sampled_from(names),
        st.integers(0, 2**32),
    )
    def play(texts, name, seed):
        model = ScriptedModel(texts, cycle=True)  # cycling: typed postrun calls it too
        with Archive(archive_path) as archive:
            run = run_episode(
                make(env_name, **env_options), build(name, store_root, loop=True), model,
                seed=seed,
                archive=archive, max_decisions=LOOP_DECISIONS,
            )  # fmt: skip
            decisions = archive.decisions(run.run_id)
        assert run.status == "completed", run.error
        assert len(decisions) == run.decisions == LOOP_DECISIONS
        answered = [d.completion.text for d in decisions if d.completion is not None]
        assert answered == [scrub(text)[0] for text in texts[: len(answered)]]
        counts["decisions"] += len(decisions)
        counts["replies"] += len(answered)
        counts["parse errors"] += sum(d.parse_error is not None for d in decisions)

    play()
    return counts


@pytest.mark.parametrize("name", WAREHOUSE_CONTRACTS)
def test_episode_loop_survives_any_reply_on_warehouse(name, tmp_path, loop_dir):
    archive_path = loop_dir / "fuzz.sqlite"
    counts = play_fuzzed_games("warehouse", (name,), archive_path, tmp_path)
    assert counts["replies"] >= LOOP_EXAMPLES * LOOP_DECISIONS
    with Archive(archive_path, read_only=True) as archive:
        runs = archive.runs()
        assert {run.status for run in runs} == {"completed"}
        assert (
            sum(len(archive.decisions(r.run_id, with_segments=False)) for r in runs)
            == (counts["decisions"])
        )


def test_episode_loop_survives_any_reply_on_spire_for_typed_and_presets(tmp_path, loop_dir):
    archive_path = loop_dir / "fuzz.sqlite"
    counts = play_fuzzed_games("spire", TYPED_CONTRACTS, archive_path, tmp_path)
    assert counts["replies"] >= LOOP_EXAMPLES * LOOP_DECISIONS
    with Archive(archive_path, read_only=True) as archive:
        runs = archive.runs()
        assert {run.status for run in runs} == {"completed"}
        assert sum(r.decisions for r in runs) == counts["decisions"]


# -- the cases found by hand ----------------------------------------------------------


def play_one(contract_name: str, texts: list[str], tmp_path: Path, horizon: int = 3):
    """One warehouse game under `contract_name` with these replies (cycled); the run, its
    archived decisions and the contract."""
    contract = build(contract_name, tmp_path)
    with Archive(tmp_path / f"{contract_name}.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=horizon, state_hint="schema"), contract,
            ScriptedModel(texts, cycle=True),
            seed=1, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    return run, decisions, contract


@pytest.mark.parametrize("name", WAREHOUSE_CONTRACTS)
def test_a_lone_surrogate_in_a_reply_is_replaced_archived_and_recorded(name, tmp_path):
    raw = f'{{"reasoning": "a{LONE}", "analysis": "b{LONE}", "action": {{"id": "report"}}}}'
    escaped = '{"reasoning": "\\ud800", "state_patch": {"k\\udc00": "v"}, "action": "x"}'
    run, decisions, contract = play_one(name, [raw, escaped], tmp_path)
    assert run.status == "completed" and len(decisions) == 3
    assert decisions[0].completion.text == raw.replace(LONE, "\ufffd")
    assert decisions[0].info["archive_surrogates_replaced"] == 2
    assert decisions[0].info["surrogates_replaced"] >= 1
    assert decisions[1].info["surrogates_replaced"] >= 1  # escaped: only decoding makes it
    if name == "state":
        assert decisions[1].state_patch == {"k\ufffd": "v"}
    if name == "transcript":
        assert LONE not in json.dumps(contract.history, ensure_ascii=False)


def test_a_lone_surrogate_in_a_spire_reply_under_typed_is_survived(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("spire"), make_contract("typed"),
            ScriptedModel([f'{{"reasoning": "{LONE}", "action": {{"id": "neow:0"}}}}'], cycle=True),
            seed=1, archive=archive, max_decisions=5,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and len(decisions) == 5
    assert decisions[0].reasoning == "\ufffd"
    assert decisions[0].info["surrogates_replaced"] == 1


@pytest.mark.parametrize("patch", ['"a string"', "[1, 2]", "3", "true"])
def test_a_state_patch_that_is_not_an_object_is_a_parse_error_and_journaled(patch, tmp_path):
    text = f'{{"state_patch": {patch}, "action": {{"id": "report", "args": ' + (
        '{"occupied": 0, "shipped": 0}}}'
    )
    run, decisions, contract = play_one("state", [text], tmp_path)
    assert run.status == "completed"
    first = decisions[0]
    assert first.parse_error.startswith("state_patch must be an object")
    assert first.state_patch is None and not first.fallback  # the action still runs
    assert first.info["patch_accepted"] is False
    assert contract.journal[0].reason.startswith("patch must be an object")
    assert contract.state == {"occupied": 0, "shipped": 0}


@pytest.mark.parametrize("name", WAREHOUSE_CONTRACTS)
def test_json_nested_10000_deep_is_a_parse_error_for_every_contract(name, tmp_path):
    text = '{"state_patch": ' + "[" * 10_000 + "]" * 10_000 + "}"
    run, decisions, _ = play_one(name, [text], tmp_path)
    assert run.status == "completed" and len(decisions) == 3
    assert all(d.parse_error and "deeper than 64" in d.parse_error for d in decisions)


def test_json_nested_10000_deep_is_a_parse_error_for_typed_on_spire():
    env = make("spire")
    obs, _ = env.reset(seed=1)
    contract = make_contract("typed")
    reset_for(contract, env, "bounded/Spire-v0")
    contract.assemble(obs)
    text = '{"action": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}"
    decision = contract.parse(Completion(text=text), obs)
    assert decision.parse_error == "reply nests JSON deeper than 64 levels"


def test_a_patch_900_deep_is_refused_at_parse_and_rejected_when_applied(tmp_path):
    deep_patch = '{"a":' * 900 + "1" + "}" * 900
    run, decisions, contract = play_one("state", [f'{{"state_patch": {deep_patch}}}'], tmp_path)
    assert run.status == "completed"
    assert "deeper than 64" in decisions[0].parse_error
    patch = json.loads(deep_patch)
    with pytest.raises(PatchRejected, match="patch nests 900 levels deep, more than 32"):
        merge_patch({}, patch)
    entry = contract.apply(patch, t=9)
    assert not entry.accepted and entry.reason == "patch nests 900 levels deep, more than 32"
    assert contract.journal[-1] is entry


def test_a_584_kb_patch_is_rejected_journaled_and_the_prompt_stays_bounded(tmp_path):
    big = json.dumps({"state_patch": {"notes": "y" * 584_000}, "action": "report"})
    small = '{"state_patch": {"occupied": 1}, "action": "report"}'
    run, decisions, contract = play_one("state", [big, small], tmp_path, horizon=4)
    assert run.status == "completed"
    assert decisions[0].info["patch_accepted"] is False
    assert "over max_state_chars (16,000)" in decisions[0].info["patch_rejected"]
    assert decisions[1].info["patch_accepted"] is True
    assert not contract.journal[0].accepted and contract.journal[1].accepted
    state_segments = [s.text for d in decisions for s in d.segments if s.layer == "state"]
    assert max(len(text) for text in state_segments) < 100
    assert contract.state == {"occupied": 1, "shipped": 0}


def test_the_state_limit_is_a_config_field(tmp_path):
    contract = StateContract(max_state_chars=40)
    contract.reset(episode())
    assert contract.apply({"a": "x" * 10}).accepted
    entry = contract.apply({"b": "x" * 30})
    assert not entry.accepted and "over max_state_chars (40)" in entry.reason
    unlimited = StateContract(max_state_chars=None)
    unlimited.reset(episode())
    assert unlimited.apply({"a": "x" * 100_000}).accepted


@pytest.mark.parametrize("name", [*WAREHOUSE_CONTRACTS])
def test_a_megabyte_of_reasoning_is_archived_whole(name, tmp_path):
    text = json.dumps({"reasoning": "r" * 1_000_000, "analysis": "a" * 1_000_000,
                       "suggestions": "s" * 1_000_000, "action": "report"})  # fmt: skip
    run, decisions, _ = play_one(name, [text], tmp_path)
    assert run.status == "completed"
    first = decisions[0]
    assert first.completion is not None and first.completion.text == text
    if name == "summary":  # Appendix B's analysis and suggestions, flattened
        assert first.reasoning == "a" * 1_000_000
        assert first.info["suggestions"] == "s" * 1_000_000
    else:
        assert first.reasoning == "r" * 1_000_000
    assert "cut" not in first.info


def test_a_megabyte_of_reasoning_is_resent_cut_to_the_transcripts_cap(tmp_path):
    text = json.dumps({"reasoning": "r" * 1_000_000, "action": "report"})
    contract = make_contract("transcript", {"reasoning_chars": 120})
    with Archive(tmp_path / "capped.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=3), contract, ScriptedModel([text], cycle=True),
            seed=1, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.model_params["reasoning_chars"] == 120
    assert decisions[0].reasoning == "r" * 1_000_000
    assert decisions[0].info["cut"] == {"reasoning": 1_000_000}
    resent = [s.text for s in decisions[1].segments if s.layer == "history"]
    assert json.loads(resent[1]) == {"reasoning": "r" * 120, "action": "report"}
    assert max(len(segment) for segment in resent) < 1_000


def test_non_json_numbers_and_bad_args_are_parse_errors():
    env = make("warehouse", horizon=3)
    obs, _ = env.reset(seed=1)
    cases = {
        '{"action": "report", "x": NaN}': "NaN is not a JSON number",
        '{"action": "report", "x": 1e999}': "overflows a float",
        '{"action": "report", "x": ' + "9" * 5000 + "}": "Exceeds the limit",
        '{"action": {"id": "report", "args": 5}}': "args for 'report' must be an object",
        '{"action": {"id": "' + "z" * 100_000 + '"}}': "is not legal now",
    }
    for text, problem in cases.items():
        decision, _ = parse_decision(text, obs)
        assert problem in decision.parse_error
        assert len(decision.parse_error) < 300  # a huge reply is quoted briefly
