"""Importers: run archives of other harnesses, loaded as `bounded` runs for analysis."""

from bounded.importers.agenticsts import ImportSummary, import_agenticsts

IMPORTERS = {"agenticsts": import_agenticsts}
"""Source name (the first argument of `bounded import`) -> importer."""

__all__ = ["IMPORTERS", "ImportSummary", "import_agenticsts"]
