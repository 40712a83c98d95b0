import json

from bounded.report.payload import json_for_script


def test_script_json_cannot_close_the_script_element():
    text = json_for_script({"t": "</script><b>", "line": "a\u2028b"})
    assert "</script>" not in text and "\u2028" not in text
    assert json.loads(text) == {"t": "</script><b>", "line": "a\u2028b"}
