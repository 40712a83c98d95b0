"""The scripted players' progression on BALROG, from a small file."""

from __future__ import annotations

from bounded.docgen.balrog import scripted_progression


def test_progression_per_environment_and_on_average():
    env = {"progression_percentage": 50.0, "standard_error": 1.5, "episodes_played": 10}
    names = ("babyai", "crafter", "minihack", "nle", "textworld")
    data = {
        "summary": {
            "scripted-expert": {
                "environments": {name: env for name in names},
                "average_progress": 50.0, "standard_error": 0.7,
            }
        }
    }  # fmt: skip
    cell = "50.0 ± 1.5 (n=10)"
    assert scripted_progression(data) == (
        "| agent | babyai | crafter | minihack | nle | textworld | average |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| scripted players | {cell} | {cell} | {cell} | {cell} | {cell} | 50.0 ± 0.7 |\n"
    )
