"""`python -m bounded.cli`."""

from bounded.cli import main

main()
