"""`python -m minitorch.exercises start DIR | check DIR [NAME ...] | list` (the command line is in cli.py)."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
