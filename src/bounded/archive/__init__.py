"""The run archive: one SQLite file (WAL) holding runs, decisions, prompt segments and
store snapshots. Every row carries a format version; prompt texts are stored once by
hash, since most segments (instructions, specs) repeat at every decision."""

from bounded.archive.sqlite import DEFAULT_ARCHIVE, Archive, ArchiveError

__all__ = ["DEFAULT_ARCHIVE", "Archive", "ArchiveError"]
