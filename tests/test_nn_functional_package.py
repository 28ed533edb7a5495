"""nn.functional is a package of concept files (conv.py, pool.py, loss.py, ...) behind a face that only hands
their names on: each F.<name> is bound once, in the file its concept names, and is PyTorch's top-level
function itself where PyTorch's F.<name> is (F.pdist is mt.pdist)."""
import ast
import inspect
import pathlib

import pytest

import minitorch as mt
import minitorch.nn.functional as F

FUNCTIONAL = pathlib.Path(F.__file__).parent


def _top_level_names(path):
    """name -> how the module binds it: 'def', 'assign' or the module it imports it from."""
    names = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = "def"
        elif isinstance(node, ast.Assign):
            names.update({t.id: "assign" for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.ImportFrom):
            names.update({alias.asname or alias.name: "." * node.level + (node.module or "") for alias in node.names})
    return names


def test_the_face_defines_nothing():
    tree = ast.parse((FUNCTIONAL / "__init__.py").read_text())
    code = [node for node in tree.body[1:] if not isinstance(node, (ast.Import, ast.ImportFrom))]
    assert isinstance(tree.body[0], ast.Expr) and code == []


def test_each_function_is_bound_once_in_the_file_its_concept_names():
    face = _top_level_names(FUNCTIONAL / "__init__.py")
    concepts = {path.stem: _top_level_names(path) for path in FUNCTIONAL.glob("*.py") if path.stem != "__init__"}
    public = [name for name in dir(F) if not name.startswith("_") and callable(getattr(F, name))]
    assert len(public) > 100
    for name in public:
        home = face[name]
        if home in ("...ops.array_ops", "...tensor"):  # mt.flatten (minitorch's own extra) and Tensor, as torch's F
            assert name in ("flatten", "Tensor"), name
            continue
        concept = home.lstrip(".")
        assert concept in concepts and name in concepts[concept], (name, home)
        binding = concepts[concept][name]
        defined_in = pathlib.Path(inspect.getsourcefile(getattr(F, name)))
        if binding == "def":
            assert defined_in == FUNCTIONAL / f"{concept}.py", (name, defined_in)
        elif binding != "assign":  # an assignment binds what a factory made (an in-place twin, accepts_out)
            assert binding.startswith("...ops."), (name, binding)  # an op file's function, handed on
            assert defined_in.parent.name == "ops", (name, defined_in)
        others = [other for other, names in concepts.items() if other != concept and names.get(name) == "def"]
        assert others == [], (name, others)


def test_a_function_pytorch_has_once_is_one_object_here():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    shared = [name for name in dir(TF) if not name.startswith("_") and callable(getattr(TF, name))
              and getattr(torch, name, None) is getattr(TF, name) and hasattr(F, name) and hasattr(mt, name)]
    assert {"pdist", "conv2d", "relu_", "hardshrink", "prelu"} <= set(shared)
    assert [name for name in shared if getattr(F, name) is not getattr(mt, name)] == []
