"""The run archive: one SQLite file (WAL) holding runs, decisions, their prompts and store
snapshots. Every row carries a format version; each distinct prompt text is stored once,
and a decision's prompt as integer ids changing the prompt before it in its game
(`bounded.archive.prompts`); runs and decisions are keyed by integers, and what decisions
repeat (legal actions, the keys of completions) is stored once (`bounded.archive.shared`;
a record's row: `bounded.archive.rows`); an older archive is converted once by the first
command that opens it (`bounded.archive.migrate`); a reader of the whole archive reads every
run and decision in one ordered pass, a page at a time (`bounded.archive.streams`)."""

from bounded.archive.sqlite import DEFAULT_ARCHIVE, Archive, ArchiveError

__all__ = ["DEFAULT_ARCHIVE", "Archive", "ArchiveError"]
