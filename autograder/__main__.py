"""``python -m autograder`` is the ``autograder`` command (used where the console script is not installed)."""

from .cli import main

main()
