"""Loads a PyTorch script from tests/pytorch_scripts/ with only its import lines rewritten.

The substitution table, applied to import statements only (one statement per
line, at any indentation); every other line of the script is run as written:

    import torch                          ->  import minitorch as torch
    import torch.X.Y as Z                 ->  import minitorch.X.Y as Z
    import torch.X.Y                      ->  import minitorch as torch, minitorch.X.Y
    from torch import A, B                ->  from minitorch import A, B
    from torch.X.Y import A, B            ->  from minitorch.X.Y import A, B

`import torch.X.Y` loads the submodule and binds the name `torch` to the package,
so its rewrite binds `torch` too (and, harmlessly, `minitorch`). Any other line
that names torch in an import is rejected rather than guessed at.
"""
import pathlib
import re
import types

SCRIPTS = pathlib.Path(__file__).parent / "pytorch_scripts"

IMPORT_REWRITES = [
    (re.compile(r"^(\s*)import torch\s*$"), r"\1import minitorch as torch"),
    (re.compile(r"^(\s*)import torch((?:\.\w+)+) as (\w+)\s*$"), r"\1import minitorch\2 as \3"),
    (re.compile(r"^(\s*)import torch((?:\.\w+)+)\s*$"), r"\1import minitorch as torch, minitorch\2"),
    (re.compile(r"^(\s*)from torch((?:\.\w+)*) import (.+)$"), r"\1from minitorch\2 import \3"),
]
IMPORT_OF_TORCH = re.compile(r"^\s*(import|from)\s+torch\b")


def rewrite_imports(source):
    """The script's source with each torch import line rewritten to minitorch.

    >>> rewrite_imports("import torch\\nimport torch.nn.functional as F\\nx = torch.ones(2)\\n")
    'import minitorch as torch\\nimport minitorch.nn.functional as F\\nx = torch.ones(2)\\n'
    """
    lines = []
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        if IMPORT_OF_TORCH.match(line):
            for pattern, replacement in IMPORT_REWRITES:
                if pattern.match(line):
                    line = pattern.sub(replacement, line.rstrip("\n")) + "\n"
                    break
            else:
                raise ValueError(f"line {number}: no rewrite for the import {line.strip()!r}")
        lines.append(line)
    return "".join(lines)


def load_script(name, framework):
    """Runs tests/pytorch_scripts/<name>.py as a module against "torch" or "minitorch".

    The module is run under its own name, not "__main__", so it defines its functions
    without running its main block.
    """
    path = SCRIPTS / f"{name}.py"
    source = path.read_text()
    if framework == "minitorch":
        source = rewrite_imports(source)
    elif framework != "torch":
        raise ValueError(f"framework must be 'torch' or 'minitorch', not {framework!r}")
    module = types.ModuleType(f"pytorch_scripts_{name}_{framework}")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module
