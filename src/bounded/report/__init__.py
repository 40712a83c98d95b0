"""The HTML report of a run archive and a local server for large archives."""

from bounded.report.build import LAYER_COLOURS, ReportOptions, build_report, render_page
from bounded.report.server import ReportServer, make_server

__all__ = [
    "LAYER_COLOURS",
    "ReportOptions",
    "ReportServer",
    "build_report",
    "make_server",
    "render_page",
]
