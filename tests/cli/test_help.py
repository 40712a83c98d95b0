"""Every `--help` page renders at 80 columns as written: no `[...]` swallowed as markup, and
no line broken inside a sentence (a line that ends early while its next line continues the
same text); `--version` prints the version."""

import itertools
import re

import pytest
import typer
from typer.testing import CliRunner

from bounded.cli import app
from bounded.version import __version__

WIDTH = 80
BRACKETED = re.compile(r"\[[a-z][a-z_.-]*\]")
SECTION_END = (".", ":", ";", ")", "]", "…")


def pages() -> list[list[str]]:
    """The argv of every help page: the top, each command, each group and its commands."""
    found: list[list[str]] = [[]]
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        found.append([name])
        found.extend([name, sub] for sub in getattr(command, "commands", {}))
    return found


def written_help(argv: list[str]) -> list[str]:
    """The help texts of the page's command and its parameters, as written."""
    command = typer.main.get_command(app)
    for name in argv:
        command = command.commands[name]
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    texts += [sub.help or "" for sub in getattr(command, "commands", {}).values()]
    return texts


def rendered(argv: list[str]) -> str:
    result = CliRunner().invoke(app, [*argv, "--help"], terminal_width=WIDTH, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def broken_lines(text: str) -> list[str]:
    """Lines of the page's panels that end early while the next line continues them."""
    lines = [
        line[2:-2] for line in text.splitlines() if line.startswith("│ ") and line.endswith(" │")
    ]
    broken = []
    for line, after in itertools.pairwise(lines):
        stripped = after.lstrip()
        start = len(after) - len(stripped)
        if not stripped or start == 0 or len(line) <= start or line[start] == " ":
            continue  # not a continuation of this line's description
        if stripped.startswith("["):  # typer's [default: ...] and [required] lines
            continue
        ended = line.rstrip()
        if ended.endswith(SECTION_END) or len(line[start:].rstrip()) == 0:
            continue
        room = len(line) - len(ended)
        if len(stripped.split()[0]) + 1 <= room:
            broken.append(f"{ended!r} then {stripped!r}")
    return broken


@pytest.mark.parametrize("argv", pages(), ids=lambda argv: " ".join(argv) or "bounded")
def test_each_help_page_shows_its_brackets_and_breaks_no_sentence(argv):
    text = rendered(argv)
    flat = " ".join(text.replace("│", " ").split())
    for written in written_help(argv):
        for bracketed in BRACKETED.findall(written):
            assert bracketed in flat, f"{bracketed} swallowed in `bounded {' '.join(argv)} --help`"
    assert broken_lines(text) == []


def test_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"bounded {__version__}\n"


TYPE_WORDS = re.compile(r"<[a-z][a-z_ \[\],.|]*>")
"""Typer's Python-type metavars: `<bool>`, `<list[str]>`, `<int range>`, `<str,str>`."""


@pytest.mark.parametrize("argv", pages(), ids=lambda argv: " ".join(argv) or "bounded")
def test_each_help_page_names_values_in_words(argv):
    text = rendered(argv)
    assert TYPE_WORDS.findall(text) == []
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage


def test_values_are_named_as_click_names_them():
    text = " ".join(rendered(["sweep"]).replace("│", " ").split())
    for shown in ("--workers INTEGER", "--budget NUMBER", "--until-decided A B",
                  "--price TEXT", "Usage: root sweep [OPTIONS] FILE [ARCHIVE]"):  # fmt: skip
        assert shown in text, shown
    assert "--dry-run --no-dry-run Check" in text  # a flag shows no value
