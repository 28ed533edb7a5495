"""Signature parity: every function and method minitorch shares with PyTorch 2.13 takes PyTorch's arguments.

For each shared name, PyTorch's accepted call forms are read from the best source there is:

* `inspect.signature`, for everything PyTorch writes in Python (nn.functional, nn.init, modules, optimizers...);
* for builtins, which have no Python signature, the type stubs PyTorch ships next to its extension
  (torch/_C/_VariableFunctions.pyi for `torch.*`, torch/_C/__init__.pyi's `TensorBase` for Tensor methods,
  torch/_C/_nn.pyi for nn.functional's builtins), generated from the same declarations as the argument
  parser; one overload per accepted form, PyTorch's deprecated forms (`add(input, alpha, other)`) left out;
* for torch.linalg and torch.special, which have no stubs, the ATen schemas (`torch._C._jit_get_schemas_for_operator`),
  renamed as the Python binding renames them (`self` -> `input`, an `.out` overload -> `out=`);
* else the documented signature, the first line of the docstring.

Against minitorch's `inspect.signature` the rules are (with PyTorch's overloads taken together):

1. every keyword PyTorch accepts, minitorch accepts (`L.sum(input=x, dim=1)`, `L.add(a, b, out=c)`);
2. minitorch takes at least as many positional arguments, and a `*size` form where PyTorch has one;
3. a positional parameter has, at its position, a name PyTorch has there, and is keyword-only where PyTorch's is;
4. what PyTorch lets a caller leave out has a default, the same value where PyTorch states one;
5. minitorch requires nothing PyTorch does not.

DELIBERATE lists the differences kept on purpose, each with its reason; a test checks that each is still a
difference (so the list cannot rot).
"""
import ast
import collections
import importlib
import inspect
import pathlib
import re

import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402

REQUIRED, UNKNOWN = "<required>", "<unknown>"
STUBS = pathlib.Path(torch.__file__).parent / "_C"
Param = collections.namedtuple("Param", "name kind default")  # kind: pos, posonly, varargs, kwonly, varkw


# ----- PyTorch's side --------------------------------------------------------------------------

def _literal(node):
    if node is None:
        return REQUIRED
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return UNKNOWN  # names of enums
    return UNKNOWN if value is Ellipsis else value  # the stubs' `...`: a default, not stated


def _params_of(arguments, drop_first):
    positional = list(arguments.posonlyargs) + list(arguments.args)
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    # `from_` stands for `from`, which no Python call can spell as a keyword: positional only
    params = [Param(a.arg, "posonly" if a in arguments.posonlyargs or a.arg == "from_" else "pos", _literal(d))
              for a, d in zip(positional, defaults)][1 if drop_first else 0:]
    if arguments.vararg:
        params.append(Param(arguments.vararg.arg, "varargs", REQUIRED))
    params += [Param(a.arg, "kwonly", _literal(d)) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)]
    if arguments.kwarg:
        params.append(Param(arguments.kwarg.arg, "varkw", REQUIRED))
    return params


def _deprecated(function_def, params):
    """Forms a call cannot use: PyTorch's deprecated ones, a scalar before the tensors (`addcmul(input, value,
    t1, t2)`, `Tensor.add(alpha, other)`, `sub(input, other, alpha)`), a scalar `self` first (`xlogy(self:
    Number, other)`); the CUDA-only `out_dtype=` forms (`mm(input, mat2, out_dtype)`), and those of named
    tensors (`names=`), out of scope."""
    annotations = {a.arg: ast.unparse(a.annotation) if a.annotation else "" for a in function_def.args.args}
    positional = [p for p in params if p.kind in ("pos", "posonly")]
    if any(p.name in ("out_dtype", "names") for p in params):  # named tensors are out of scope too
        return True
    for i, p in enumerate(positional):
        if p.name == "self" or p.name == "alpha":
            return True
        if p.name in ("beta", "value") and any("Tensor" in annotations.get(q.name, "") for q in positional[i + 1:]):
            return True
    return False


def _stub_table(path, class_name=None):
    tree = ast.parse(path.read_text())
    body = tree.body
    if class_name:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == class_name).body
    table = collections.defaultdict(list)
    for node in body:
        if isinstance(node, ast.FunctionDef):
            params = _params_of(node.args, drop_first=class_name is not None)
            if class_name:  # the stubs give methods `out=`, which no method takes (`x.add(y, out=z)` raises)
                params = [p for p in params if p.name != "out"]
            if not _deprecated(node, params):
                table[node.name].append(params)
    return table


FUNCTION_STUBS = _stub_table(STUBS / "_VariableFunctions.pyi")
MODULE_STUBS = _stub_table(STUBS / "__init__.pyi")
NN_STUBS = _stub_table(STUBS / "_nn.pyi")
METHOD_STUBS = _stub_table(STUBS / "__init__.pyi", "TensorBase")


def _split_top_level(text):
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([" and 1 or char in ")]" and -1 or 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return parts + ([current.strip()] if current.strip() else [])


def _schema_overloads(aten_name):
    """PyTorch's Python forms of an ATen op from its schemas: `self` is `input`, an out overload adds `out=`."""
    forms, takes_out = [], False
    for schema in map(str, torch._C._jit_get_schemas_for_operator(f"aten::{aten_name}")):
        overload, arguments = re.match(r"aten::\w+(?:\.(\w+))?\((.*)\) ->", schema).groups()
        if re.search(r"\*.*Tensor\(\w!\)", arguments):  # writes into keyword-only tensors: Python's out=
            takes_out = True
            continue
        params, keyword_only = [], False
        for argument in _split_top_level(arguments):
            if argument == "*":
                keyword_only = True
                continue
            type_and_name, _, default = argument.partition("=")
            type_, name = type_and_name.rsplit(" ", 1)
            if name == "self" and not params and not type_.startswith("Tensor"):
                params = None  # a scalar-first form
                break
            name = "input" if name == "self" else name
            value = _literal_text(default) if default else REQUIRED
            params.append(Param(name, "kwonly" if keyword_only else "pos", value))
        if params is not None:
            forms.append(params)
    if takes_out:
        forms = [form + [Param("out", "kwonly", None)] for form in forms]
    return forms


def _literal_text(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return UNKNOWN  # an enum: `int reduction=Mean`


def _documented(fn, name):
    """The forms documented on the docstring's lines that spell `name(...)` (`Module.to` has four)."""
    lines, forms = (inspect.getdoc(fn) or "").splitlines(), []
    for i, line in enumerate(lines):
        text = re.sub(r"^(\.\. function:: )?(torch\.)?(linalg\.|special\.|nn\.functional\.)?", "", line.strip())
        if text.startswith(name + "("):
            while text.count("(") > text.count(")") and i + 1 < len(lines):
                i += 1
                text += " " + lines[i].strip()
            text = text.split("->")[0].strip().rstrip(":")
            try:
                forms.append(_params_of(ast.parse(f"def {text}: pass").body[0].args, drop_first=False))
            except SyntaxError:
                continue
    return forms or None


def _from_signature(fn, drop_first):
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    kinds = {inspect.Parameter.POSITIONAL_ONLY: "posonly", inspect.Parameter.POSITIONAL_OR_KEYWORD: "pos",
             inspect.Parameter.VAR_POSITIONAL: "varargs", inspect.Parameter.KEYWORD_ONLY: "kwonly",
             inspect.Parameter.VAR_KEYWORD: "varkw"}
    params = [Param(p.name, kinds[p.kind], REQUIRED if p.default is p.empty else p.default)
              for p in signature.parameters.values()]
    return params[1:] if drop_first else params


def _is_dispatcher(params):
    """PyTorch's `def f(*args, **kwargs)` wrappers (boolean_dispatch, torch.unique): not the real signature."""
    return params is not None and [p.kind for p in params][-2:] == ["varargs", "varkw"]


# Where the stubs disagree with what PyTorch's parser accepts (each checked against torch below).
STUB_ERRATA = {
    "Tensor.requires_grad_": [[Param("requires_grad", "pos", True)]],  # the stub says `mode`
    "torch.set_num_threads": [[Param("num", "posonly", REQUIRED)]],  # no keywords at all
    "torch.set_num_interop_threads": [[Param("num", "posonly", REQUIRED)]],
    "torch.from_numpy": [[Param("ndarray", "posonly", REQUIRED)]],
    "Tensor.contiguous": [[Param("memory_format", "kwonly", UNKNOWN)]],  # no positional argument
    "F.has_torch_function": [[Param("relevant_args", "posonly", REQUIRED)]],  # no keywords (the stub says `args`)
    "F.has_torch_function_unary": [[Param("arg", "posonly", REQUIRED)]],
    "torch.asarray": [[Param("obj", "pos", REQUIRED), Param("dtype", "kwonly", None), Param("device", "kwonly", None),
                       Param("copy", "kwonly", None), Param("requires_grad", "kwonly", False)]],
}


# The ATen forms of losses whose binding leaves reduction at 0 (none) by default, where the stubs say 1.
UNREDUCED_BY_DEFAULT = {f"torch.{name}" for name in (
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "triplet_margin_loss")}


def torch_forms(group, name, fn, method):
    """PyTorch's call forms of `fn` (a list of parameter lists), or None when no source states them."""
    qualified = f"{group}.{name}"
    if qualified in STUB_ERRATA:
        return STUB_ERRATA[qualified]
    params = _from_signature(fn, method)
    if params is not None and not _is_dispatcher(params):
        return [params]
    if params is not None and group != "Tensor" and _documented(fn, name):  # boolean_dispatch, torch.unique
        return _documented(fn, name)
    stub_name = getattr(fn, "__name__", name)
    if group == "Tensor":
        tables = [METHOD_STUBS]
    elif getattr(fn, "__module__", None) == "torch._C._nn":
        tables = [NN_STUBS]
    elif getattr(fn, "__module__", None) in ("torch._C._linalg", "torch._C._special"):
        tables = []
    else:
        tables = [FUNCTION_STUBS, MODULE_STUBS]
    for table in tables:
        if table.get(stub_name):
            if qualified in UNREDUCED_BY_DEFAULT:
                return [[p._replace(default=0) if p.name == "reduction" else p for p in form] for form in table[stub_name]]
            return table[stub_name]
    if getattr(fn, "__module__", None) in ("torch._C._linalg", "torch._C._special"):
        forms = _schema_overloads(stub_name)
        if forms:
            return forms
    return _documented(fn, name)


# ----- the comparison ---------------------------------------------------------------------------

def differences(forms, params):
    """How minitorch's parameters `params` fall short of PyTorch's call `forms` (rules 1-5 above)."""
    if params is None:
        return ["no Python signature"]
    if _is_dispatcher(params) and len(params) == 2:
        return ["a (*args, **kwargs) wrapper with no __signature__"]
    found = []
    by_name = {p.name: (i, p) for i, p in enumerate(params)}
    any_keyword = any(p.kind == "varkw" for p in params)
    has_varargs = any(p.kind == "varargs" for p in params)
    positional = [p for p in params if p.kind in ("pos", "posonly")]
    names_at, keywords, optional, stated = collections.defaultdict(set), set(), set(), collections.defaultdict(list)
    for form in forms:
        form_positional = [p for p in form if p.kind in ("pos", "posonly")]
        for i, p in enumerate(form_positional):
            if p.kind == "pos":
                names_at[i].add(p.name)
            else:
                names_at[i].add(None)  # any name will do
        keywords |= {p.name for p in form if p.kind in ("pos", "kwonly") and p.name != "self"}
        for p in form:
            if p.default is not REQUIRED or p.kind in ("varargs", "varkw"):
                optional.add(p.name)
                if p.default not in (REQUIRED, UNKNOWN):
                    stated[p.name].append(p.default)
    every_name = set().union(*({p.name for p in form} for form in forms)) if forms else set()
    for form in forms:
        optional |= every_name - {p.name for p in form}
    # 1. keywords
    for name in sorted(keywords):
        if name in by_name and by_name[name][1].kind in ("pos", "kwonly"):
            continue
        if not any_keyword:
            found.append(f"refuses {name}=")
    # 2. positional count, *size forms
    for form in forms:
        if any(p.kind == "varargs" for p in form):
            if not has_varargs:
                found.append(f"no *{next(p.name for p in form if p.kind == 'varargs')} form")
        elif not has_varargs and len([p for p in form if p.kind in ("pos", "posonly")]) > len(positional):
            found.append(f"takes {len(positional)} positional arguments, PyTorch "
                         f"{len([p for p in form if p.kind in ('pos', 'posonly')])}")
    # 3. names at positions, keyword-only
    varargs_at = next((i for i, p in enumerate(params) if p.kind == "varargs"), len(params))
    torch_varargs = any(p.kind == "varargs" for form in forms for p in form)
    for i, p in enumerate(positional):
        if i in names_at:
            if p.name not in names_at[i] and None not in names_at[i]:
                found.append(f"position {i} is {p.name}, PyTorch's {'/'.join(sorted(names_at[i]))}")
        elif not torch_varargs and i < varargs_at and p.name in every_name:
            found.append(f"{p.name} is positional (position {i}), PyTorch takes it by keyword only")
    # 4. defaults
    for name in sorted(optional):
        if name not in by_name:
            continue
        p = by_name[name][1]
        if p.kind in ("varargs", "varkw"):
            continue
        if p.default is REQUIRED:
            found.append(f"{name} is required, PyTorch's is optional")
        elif stated[name] and not any(_same_default(p.default, d) for d in stated[name]):
            found.append(f"{name}={p.default!r}, PyTorch's {stated[name][0]!r}")
    # 5. nothing required that PyTorch lacks (PyTorch's *args takes any positional argument: einsum(*args))
    for p in params:
        if p.default is REQUIRED and p.kind in ("pos", "posonly", "kwonly") and p.name not in every_name and not (
                torch_varargs and p.kind != "kwonly"):
            index = positional.index(p) if p in positional else None
            if index is None or index not in names_at:
                found.append(f"requires {p.name}, which PyTorch lacks")
    return found


def _same_default(ours, theirs):
    if ours is theirs:
        return True
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
        return list(ours) == list(theirs)
    if {type(ours), type(theirs)} <= {type(None), tuple, list} and not ours and not theirs:
        return True  # "not given": PyTorch's ATen forms write stride=(), its Python forms stride=None
    if type(ours).__name__ == type(theirs).__name__ == "Generator":  # the default generator, each its own
        return True
    if callable(ours) and callable(theirs):  # activation=F.relu: the same function by name
        return getattr(ours, "__name__", None) == getattr(theirs, "__name__", None)
    try:
        return type(ours) in (type(theirs), int, float) and bool(ours == theirs) or str(ours) == str(theirs)
    except Exception:
        return False


# ----- what minitorch shares with PyTorch -------------------------------------------------------

def _public(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _function_groups():
    """(group, name, torch function, minitorch function, is a method)."""
    spaces = [("torch", torch, mt), ("F", torch.nn.functional, mt.nn.functional), ("init", torch.nn.init, mt.nn.init),
              ("linalg", torch.linalg, mt.linalg), ("special", torch.special, mt.special),
              ("autograd", torch.autograd, mt.autograd), ("autograd.functional", torch.autograd.functional,
                                                          mt.autograd.functional),
              ("nn.utils", torch.nn.utils, mt.nn.utils), ("nn.utils.rnn", torch.nn.utils.rnn, mt.nn.utils.rnn),
              ("utils.data", torch.utils.data, mt.utils.data)]
    for group, theirs, ours in spaces:
        for name in _public(theirs):
            t, m = getattr(theirs, name, None), getattr(ours, name, None)
            if callable(t) and callable(m) and not isinstance(t, type) and not isinstance(m, type):
                yield group, name, t, m, False
    for name in _public(torch.Tensor) + ["__getitem__", "__setitem__"]:
        t, m = getattr(torch.Tensor, name, None), getattr(mt.Tensor, name, None)
        if callable(t) and callable(m) and not isinstance(t, type):
            yield "Tensor", name, t, m, True


def _class_groups():
    """(group, "Class.method", torch method, minitorch method, True) for the shared classes' __init__ and
    public methods."""
    spaces = [("nn", torch.nn, mt.nn), ("optim", torch.optim, mt.optim),
              ("lr_scheduler", torch.optim.lr_scheduler, mt.optim.lr_scheduler),
              ("utils.data", torch.utils.data, mt.utils.data)]
    for group, theirs, ours in spaces:
        for name in _public(theirs):
            t, m = getattr(theirs, name, None), getattr(ours, name, None)
            if not (isinstance(t, type) and isinstance(m, type)):
                continue
            # each method where PyTorch defines it (Module.to once, not once per layer)
            for method in ["__init__"] + [n for n in _public(t) if n in vars(t) and callable(vars(t)[n])]:
                tm, mm = getattr(t, method, None), getattr(m, method, None)
                if callable(tm) and callable(mm) and not isinstance(tm, type):
                    yield group, f"{name}.{method}", tm, mm, not isinstance(inspect.getattr_static(t, method), staticmethod)


def shared():
    yield from _function_groups()
    yield from _class_groups()


def _minitorch_params(fn, method):
    return _from_signature(fn, method)


def all_differences():
    """{"group.name": [differences]} for every shared function and method, and the names with no PyTorch form."""
    found, unstated = {}, []
    for group, name, theirs, ours, method in shared():
        if _is_dispatcher(_from_signature(theirs, method)) and _is_dispatcher(_minitorch_params(ours, method)):
            continue  # both take (*args, **kwargs): their behaviour is tested, there is no signature to compare
        forms = torch_forms(group, name, theirs, method)
        if forms is None:
            unstated.append(f"{group}.{name}")
            continue
        problems = differences(forms, _minitorch_params(ours, method))
        if problems:
            found[f"{group}.{name}"] = problems
    return found, unstated


# ----- the deliberate differences ---------------------------------------------------------------

DELIBERATE = {
    **{f"Tensor.{name}": "removed from PyTorch in 1.9: both raise, whatever the arguments"
       for name in ("eig", "lstsq", "solve", "symeig")},
    "Tensor.to": "PyTorch's three forms (a dtype, a device or a tensor first) read from *args, **kwargs, as its Module.to",
    "Tensor.new": "the legacy constructor: sizes or data by position; PyTorch's storage= and other= forms are not here",
    "torch.save": "pickle_module= and the other pickle options: minitorch writes safetensors, never pickle",
}


# ----- the tests --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def report():
    return all_differences()


def test_every_shared_function_and_method_takes_pytorchs_arguments(report):
    found, _ = report
    unexpected = {name: problems for name, problems in found.items() if name not in DELIBERATE}
    assert not unexpected, f"{len(unexpected)} signatures differ from PyTorch's:\n" + "\n".join(
        f"  {name}: {'; '.join(problems)}" for name, problems in sorted(unexpected.items()))


def test_the_deliberate_differences_are_still_differences(report):
    found, _ = report
    assert not [name for name in DELIBERATE if name not in found]


def test_pytorch_states_a_signature_for_nearly_everything_shared(report):
    _, unstated = report
    assert len(unstated) <= 15, unstated


def test_the_stub_errata_are_what_pytorch_accepts():
    x = torch.ones(2)
    assert x.requires_grad_(requires_grad=True).requires_grad
    assert not torch.asarray([1.0]).requires_grad
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        x.contiguous(torch.contiguous_format)
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        x.add(x, out=x)
    assert torch.kl_div(x, x).shape == (2,) and torch.hinge_embedding_loss(x, x).shape == (2,)  # reduction 0
    for call in (lambda: torch.set_num_threads(num=1), lambda: torch.from_numpy(ndarray=None),
                 lambda: torch.nn.functional.has_torch_function(args=()),
                 lambda: torch.nn.functional.has_torch_function_unary(Any=x)):
        with pytest.raises(TypeError, match="takes no keyword arguments"):
            call()


def test_the_comparison_finds_each_kind_of_difference():
    """The rules themselves, on made-up signatures."""
    forms = [[Param("input", "pos", REQUIRED), Param("dim", "pos", None), Param("keepdim", "pos", False),
              Param("dtype", "kwonly", None), Param("out", "kwonly", None)]]

    def ours(text):
        return _from_signature(eval(f"lambda {text}: None"), False)

    assert differences(forms, ours("input, dim=None, keepdim=False, *, dtype=None, out=None")) == []
    assert differences(forms, ours("x, dim=None, keepdim=False, *, dtype=None, out=None")) == [
        "refuses input=", "position 0 is x, PyTorch's input"]
    assert differences(forms, ours("input, dim=None, keepdim=False, dtype=None, *, out=None")) == [
        "dtype is positional (position 3), PyTorch takes it by keyword only"]
    assert differences(forms, ours("input, dim, keepdim=True, *, dtype=None, out=None")) == [
        "dim is required, PyTorch's is optional", "keepdim=True, PyTorch's False"]
    assert differences(forms, ours("input, *, scale, dim=None, keepdim=False, dtype=None, out=None")) == [
        "takes 1 positional arguments, PyTorch 3", "requires scale, which PyTorch lacks"]
    assert differences(forms, ours("*args, **kwargs")) == ["a (*args, **kwargs) wrapper with no __signature__"]
    assert differences([[Param("size", "varargs", REQUIRED)]], ours("size")) == [
        "no *size form", "size is required, PyTorch's is optional"]
