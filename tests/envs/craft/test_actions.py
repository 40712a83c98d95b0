from bounded.envs.craft import ACTION_DICTIONARY, ACTION_NAMES
from bounded.envs.craft.actions import (
    BUILD_TARGETS,
    CHRONO_TARGETS,
    RESEARCH_TARGETS,
    TRAIN_TARGETS,
)
from bounded.envs.craft.data import PROTOSS_RESEARCH, PROTOSS_STRUCTURES, PROTOSS_UNITS


def test_dictionary_has_textstarcraft_layout():
    sizes = {category: len(names) for category, names in ACTION_DICTIONARY.items()}
    assert sizes == {
        "TRAIN UNIT": 19,
        "BUILD STRUCTURE": 15,
        "RESEARCH TECHNIQUE": 26,
        "OTHER ACTION": 12,
    }
    assert len(ACTION_NAMES) == 72 == len(set(ACTION_NAMES))
    assert ACTION_NAMES[0] == "TRAIN PROBE"
    assert ACTION_NAMES[71] == "EMPTY ACTION"
    indices = sorted(i for names in ACTION_DICTIONARY.values() for i in names)
    assert indices == list(range(72))


def test_every_target_has_data():
    assert all(unit in PROTOSS_UNITS for unit in TRAIN_TARGETS.values())
    assert all(key in PROTOSS_STRUCTURES for key in BUILD_TARGETS.values())
    assert set(RESEARCH_TARGETS.values()) == set(PROTOSS_RESEARCH)
    assert all(key in PROTOSS_STRUCTURES for key in CHRONO_TARGETS.values())
