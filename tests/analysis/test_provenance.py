import json
import os

import pytest

from bounded.analysis.provenance import KINDS, finished, provenance, write_result


def test_provenance_records_commit_command_date_machine_and_load():
    started = provenance()
    assert len(started["commit"]) == 40 and isinstance(started["dirty"], bool)
    assert started["cpus"] == os.cpu_count()
    assert len(started["load_start"]) == 3 and started["kind"] == "measured"
    assert started["date"].endswith("+00:00")
    done = finished(started)
    assert len(done["load_end"]) == 3 and done["commit"] == started["commit"]


def test_a_kind_outside_the_list_is_refused():
    assert provenance("floor", "state rows")["note"] == "state rows"
    assert set(KINDS) == {"measured", "floor", "estimate"}
    with pytest.raises(ValueError, match="unknown kind 'guess'"):
        provenance("guess")


def test_write_result_puts_the_provenance_first(tmp_path):
    target = write_result(tmp_path / "new" / "r.json", {"rows": [1]}, provenance("estimate"))
    data = json.loads(target.read_text())
    assert list(data) == ["provenance", "rows"]
    assert data["provenance"]["kind"] == "estimate" and "load_end" in data["provenance"]
