"""The package's floors: every import points down, read from the source with ast.

minitorch is read to learn how a gradient tape works, so its structure is part
of what it teaches: no import loop, and no import hidden inside a function or
below a module's first block of code.
"""
import ast
import pathlib
import subprocess
import sys

import minitorch

PACKAGE = pathlib.Path(minitorch.__file__).parent


def _module_name(path, package=PACKAGE):
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(package=PACKAGE):
    return {_module_name(path, package): path for path in sorted(package.rglob("*.py"))}


def _resolve(module, is_package, node):
    """What an import statement names: [(module, names taken from it)], absolute (outside modules too)."""
    if isinstance(node, ast.Import):
        return [(alias.name, ()) for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    return [(target, tuple(alias.name for alias in node.names))]


def _face_sources(modules):
    """Each package face (__init__.py): name -> (module, name there) for the names it imports."""
    faces = {}
    for name, path in modules.items():
        if path.name != "__init__.py":
            continue
        faces[name] = {}
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ImportFrom):
                [(target, _)] = _resolve(name, True, node)
                faces[name].update({alias.asname or alias.name: (target, alias.name) for alias in node.names})
    return faces


def _source(modules, faces, target, item):
    """The module that `from target import item` gets its value from: a submodule, the module a face took the
    name from (followed through faces), or the face itself for a name it defines."""
    seen = set()
    while f"{target}.{item}" not in modules and (target, item) not in seen and item in faces.get(target, {}):
        seen.add((target, item))
        target, item = faces[target][item]
    return f"{target}.{item}" if f"{target}.{item}" in modules else target


def _import_graph(package=PACKAGE):
    """module -> the modules of the package that importing it runs.

    `import a.b.c` runs the faces a and a.b (their __init__.py) on the way to a.b.c; a face on the way that
    is one of the importer's own packages is running already, so it is no edge. What an import names is an
    edge, resolved: a name taken from a face (`from .. import dtypes`, `from minitorch import Tensor`) to
    the module it comes from; `import minitorch`, or a name the face defines, to the face itself, which,
    from inside the package, closes a loop."""
    modules = _modules(package)
    faces = _face_sources(modules)
    graph = {}
    for name, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target, taken in _resolve(name, path.name == "__init__.py", node):
                parts = target.split(".")
                edges |= {".".join(parts[:end]) for end in range(1, len(parts) + 1 if taken else len(parts))
                          if not name.startswith(".".join(parts[:end]) + ".")}
                edges |= {_source(modules, faces, target, item) for item in taken} if taken else {target}
        graph[name] = {target for target in edges if target in modules and target != name}
    return graph


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_loop():
    cycles = _cycles(_import_graph())
    assert cycles == [], f"modules that import each other in a loop: {cycles}"


# Imports inside functions, each with its reason; only of outside libraries, so they make no floor of their own.
DEFERRED = {
    # matplotlib took a third to a half of `import minitorch`'s time, for a picture most programs never draw.
    "minitorch.viz.drawing": {"matplotlib.backends.backend_agg", "matplotlib.figure", "matplotlib.patches"},
}


def test_every_import_is_at_the_top_of_its_module():
    late = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(), str(path))
        top = {id(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))}
        seen_code = False
        for node in tree.body:
            is_import = isinstance(node, (ast.Import, ast.ImportFrom))
            is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if is_import and seen_code:
                late.append(f"{name}:{node.lineno}")
            elif not is_import and not is_docstring:
                seen_code = True
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                if not (node.level == 0 and {_resolve(name, False, node)[0][0]} <= DEFERRED.get(name, set())):
                    late.append(f"{name}:{node.lineno}")
    assert late == [], f"imports inside functions or below a module's first block of code: {late}"


def test_the_engine_does_not_reach_up():
    """engine/ sits below the ops, the public doors and everything built on them."""
    above = ("minitorch.ops", "minitorch.autograd", "minitorch.nn", "minitorch.optim", "minitorch.tensor_methods",
             "minitorch.creation", "minitorch.viz", "minitorch.utils", "minitorch.datasets")
    graph = _import_graph()
    reaching = {name: sorted(t for t in edges if t.startswith(above))
                for name, edges in graph.items() if name.startswith("minitorch.engine")}
    assert {name: t for name, t in reaching.items() if t} == {}


def test_each_helper_is_defined_once_across_the_package():
    """A private name (a helper: _pair, _shape, _col2im, ...) is defined at the top of one module only, once: a
    helper doing the same work is imported from where it lives, one doing other work gets a name of its own."""
    places = {}
    for name, path in _modules().items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined = [node.name]
            elif isinstance(node, ast.Assign):
                defined = [target.id for target in node.targets if isinstance(target, ast.Name)]
            else:
                defined = []
            for helper in defined:
                if helper.startswith("_") and not helper.startswith("__"):
                    places.setdefault(helper, []).append(f"{name}:{node.lineno}")
    assert {helper: where for helper, where in places.items() if len(where) > 1} == {}


MAX_LINES = 700  # a file longer than this holds more than one concept: split it by concept


def test_no_module_is_longer_than_the_line_limit():
    lengths = {name: len(path.read_text().splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


# tensor.py's Tensor: what it is made of, and nothing else (tensor_methods.py binds every other method).
TENSOR_CONSTRUCTORS = {"__new__", "_from_data", "_make"}
TENSOR_DATA = {"shape", "dtype", "ndim"}  # properties
TENSOR_FLAGS = {"requires_grad", "requires_grad_", "grad", "is_leaf", "grad_fn"}  # properties, and the flag's setter
TENSOR_DATA_OUT = {"numpy", "__array__", "item", "tolist", "_scalar", "__float__", "__int__", "__index__", "__bool__"}


def test_the_tensor_holds_its_data_and_flags_only():
    """The value the engine records: its slots, constructors, data (shape, dtype, ndim, and the data out to numpy
    and Python) and autograd flags. No PyTorch alias (dim, size, numel, nelement) and no convenience method
    (detach_, hooks, printing, copying): those live with their ops or in tensor_methods.py."""
    tree = ast.parse((PACKAGE / "tensor.py").read_text())
    tensor = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Tensor")
    members = []
    for node in tensor.body[1:]:  # after the docstring
        if isinstance(node, ast.FunctionDef):
            members.append(node.name)
        else:
            assert isinstance(node, ast.Assign) and [t.id for t in node.targets] in (["__slots__"], ["__hash__"]), \
                ast.unparse(node)
    allowed = TENSOR_CONSTRUCTORS | TENSOR_DATA | TENSOR_FLAGS | TENSOR_DATA_OUT
    assert sorted(set(members) - allowed) == []
    assert {"dim", "size", "numel", "detach_", "register_hook", "__repr__"} & set(members) == set()


def test_the_tensor_imports_only_the_engine_floor_below_it():
    assert _import_graph()["minitorch.tensor"] <= {"minitorch.dtypes", "minitorch.engine", "minitorch.engine.autograd_tape"}


def test_the_loop_finder_finds_loops():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _package(tmp_path, files):
    for relative, source in files.items():
        path = tmp_path / "pkg" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return tmp_path / "pkg"


FACE = {"__init__.py": "from .core import Core\nfrom . import sub, tools\n\ndef helper():\n    pass\n",
        "core.py": "class Core:\n    pass\n", "sub/__init__.py": "from .deep import Deep\n",
        "sub/deep.py": "class Deep:\n    pass\n"}


def test_the_loop_finder_sees_the_package_imported_from_inside_it(tmp_path):
    """`import pkg` in a module that pkg's face imports is a loop; so is a name the face itself defines, and a
    name it hands on from a module that imports back."""
    for tools in ("import pkg\n", "import pkg as p\n", "from pkg import helper\n", "from . import helper\n"):
        graph = _import_graph(_package(tmp_path, {**FACE, "tools.py": tools}))
        assert _cycles(graph) == [["pkg", "pkg.tools"]], tools
    graph = _import_graph(_package(tmp_path, {**FACE, "tools.py": "", "sub/deep.py": "from .. import Core\n",
                                              "core.py": "from .sub import Deep\nfrom . import tools\n"}))
    assert _cycles(graph) == [["pkg.core", "pkg.sub", "pkg.sub.deep"]]


def test_the_loop_finder_resolves_names_taken_from_a_face(tmp_path):
    """A name taken from a face is an edge to the module it comes from, not to the face: no loop here."""
    for tools in ("from pkg import Core\n", "from . import core\n", "from .core import Core\n",
                  "from .sub import Deep\n", "from pkg.sub import Deep\n"):
        graph = _import_graph(_package(tmp_path, {**FACE, "tools.py": tools}))
        assert _cycles(graph) == [], tools
    assert _import_graph(_package(tmp_path, {**FACE, "tools.py": "from pkg import Core, sub\n"}))["pkg.tools"] == {
        "pkg.core", "pkg.sub"}


def test_import_minitorch_leaves_the_deferred_libraries_unimported():
    code = "import sys, minitorch; print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300).stdout
    assert out == "[]\n"
