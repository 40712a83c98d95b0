"""The report as paper material: its figures as files (`--figures DIR`: one SVG and one PDF
each), every table inside a scrolling frame (never clipped), and a header that says which
code played the runs and which wrote the report, and when."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from bounded.archive import Archive
from bounded.cli import main
from bounded.report import build_report
from bounded.version import code_revision


class Tables(HTMLParser):
    """Each <table>'s innermost enclosing <div> class, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.divs: list[str] = []
        self.framed: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "div":
            self.divs.append(dict(attrs).get("class") or "")
        elif tag == "table":
            self.framed.append(self.divs[-1] if self.divs else "")

    def handle_endtag(self, tag):
        if tag == "div" and self.divs:
            self.divs.pop()


def test_each_figure_is_written_as_svg_and_pdf(report_archive, tmp_path, capsys):
    folder = tmp_path / "figures"
    page = tmp_path / "r.html"
    main_ok(["report", str(report_archive), "-o", str(page), "--figures", str(folder)])
    inline = page.read_text().count("<svg")
    svgs = sorted(path.stem for path in folder.glob("*.svg"))
    pdfs = sorted(path.stem for path in folder.glob("*.pdf"))
    assert svgs == pdfs and len(svgs) == inline == 6, svgs
    assert {"context", "layers"} <= set(svgs) and "warehouse-winrate" in svgs
    for name in svgs:
        assert (folder / f"{name}.pdf").read_bytes().startswith(b"%PDF-")
        text = (folder / f"{name}.svg").read_text()
        assert text.startswith("<?xml") and "<svg" in text and text.rstrip().endswith("</svg>")
    assert f"figures: {folder}" in " ".join(capsys.readouterr().out.split())


def test_a_figures_folder_that_is_a_file_is_refused_in_one_line(report_archive, tmp_path, capsys):
    taken = tmp_path / "figures"
    taken.write_text("mine")
    code = main_status(["report", str(report_archive), "-o", str(tmp_path / "r.html"),
                        "--figures", str(taken)])  # fmt: skip
    assert code == 2 and taken.read_text() == "mine"
    assert capsys.readouterr().err.strip() == (
        f"bounded: error: --figures {taken}: it is a file; give a folder"
    )


def test_every_table_scrolls_in_its_frame(report_archive, tmp_path):
    out = tmp_path / "r.html"
    pair = "state,transcript"
    main_ok(["report", str(report_archive), "-o", str(out), "--pool-all", "--diff", pair,
             "--change", pair, "--compare", pair])  # fmt: skip
    page = out.read_text()
    tables = Tables()
    tables.feed(page)
    assert len(tables.framed) >= 5 and set(tables.framed) == {"table-wrap"}, tables.framed
    assert re.search(r"\.table-wrap \{[^}]*overflow-x: auto", page)


def test_the_header_names_the_code_of_the_runs_and_of_the_report(report_archive, tmp_path):
    copy = tmp_path / "a.sqlite"
    copy.write_bytes(Path(report_archive).read_bytes())
    with Archive(copy) as archive:
        [first, *_] = archive.runs()
        archive.save_run(first.model_copy(update={"code_revision": "v0.9-1-gdeadbee"}))
    page = build_report(copy, tmp_path / "r.html").read_text()
    header = re.search(r'<p class="meta" id="provenance">(.*?)</p>', page, re.S).group(1)
    assert '<code class="revision">v0.9-1-gdeadbee</code>' in header
    assert f'<code class="revision">{code_revision()}</code>' in header  # the other runs'
    assert f"by bounded <code>{code_revision()}</code>" in header
    assert re.search(r"written \d{4}-\d\d-\d\d \d\d:\d\d UTC", header)


def main_status(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as exit_info:
        return int(exit_info.code or 0)
    return 0


def main_ok(argv: list[str]) -> None:
    assert main_status(argv) == 0
