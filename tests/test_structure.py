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


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module, is_package, node):
    """The absolute minitorch module names an import statement reads (None for outside modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    return [target] + [f"{target}.{alias.name}" for alias in node.names]


def _import_graph():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(name, path.name == "__init__.py", node):
                    # Importing a.b.c runs the __init__ of a and a.b first: those are edges too.
                    parts = target.split(".")
                    for end in range(1, len(parts) + 1):
                        prefix = ".".join(parts[:end])
                        if prefix in modules and prefix != name:
                            edges.add(prefix)
        graph[name] = edges
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


def _package_parents(graph):
    """A package's __init__ re-exports its modules; a module importing a sibling goes through
    the package, which is not a loop. Edges from a module to its own package are dropped."""
    return {name: {t for t in edges if not name.startswith(t + ".")} for name, edges in graph.items()}


def test_no_import_loop():
    cycles = _cycles(_package_parents(_import_graph()))
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
                if not (node.level == 0 and set(_resolve(name, False, node)[:1]) <= DEFERRED.get(name, set())):
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


def test_the_tensor_core_is_small_and_imports_only_the_engine_floor_below_it():
    source = (PACKAGE / "tensor.py").read_text()
    assert len(source.splitlines()) < 430
    edges = _package_parents(_import_graph())["minitorch.tensor"]
    allowed = {"minitorch.dtypes", "minitorch.printing", "minitorch.engine", "minitorch.engine.autograd_tape",
               "minitorch.engine.hooks", "minitorch.engine.state", "minitorch.engine.nodes"}
    assert edges <= allowed, edges - allowed


def test_the_loop_finder_finds_loops():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_import_minitorch_leaves_the_deferred_libraries_unimported():
    code = "import sys, minitorch; print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300).stdout
    assert out == "[]\n"
