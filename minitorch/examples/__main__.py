"""List minitorch's examples: python -m minitorch.examples

Each example runs as python -m minitorch.examples.NAME, and --help shows its options.
"""
from . import cnn, explain, higher_order, mlp
from .cli import example_parser

EXAMPLES = {"mlp": mlp, "cnn": cnn, "explain": explain, "higher_order": higher_order}


def listing() -> str:
    """One line per example: how to run it and what it does (its docstring's first line).

    >>> print(listing().splitlines()[0])
    python -m minitorch.examples.mlp
    """
    lines = []
    for name, module in EXAMPLES.items():
        lines += [f"python -m minitorch.examples.{name}", f"    {module.__doc__.splitlines()[0]}"]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Print the list of examples.

    >>> main([])
    minitorch's examples (each takes --help):
    python -m minitorch.examples.mlp
    ...
    0
    """
    example_parser("python -m minitorch.examples", __doc__).parse_args(argv)
    print("minitorch's examples (each takes --help):")
    print(listing())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
