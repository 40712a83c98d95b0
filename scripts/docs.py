"""Regenerate (`--write`) or check (`--check`) every table of measured numbers in the docs:
the command of `bounded.docgen` (also `python -m bounded.docgen`), run on this checkout.

    python scripts/docs.py --check     # exit 1 and name every stale region
    python scripts/docs.py --write     # rewrite the stale regions in place
"""

from __future__ import annotations

import sys
from pathlib import Path

from bounded.docgen.command import main

if __name__ == "__main__":
    sys.exit(main(root=Path(__file__).parents[1]))
