"""The helpers torch.nn.functional exposes for writing functions like its own.

The __torch_function__ protocol, for code that checks it: minitorch's own
functions do not dispatch on it, but a library function written the PyTorch
way (`if has_torch_function_unary(x): return handle_torch_function(...)`)
runs, and hands objects whose type defines __torch_function__ to it.
"""


def _overloaded(relevant_args):
    """The arguments whose type defines __torch_function__, one per type, in order."""
    seen, overloaded = set(), []
    for arg in relevant_args:
        kind = type(arg)
        if kind not in seen and hasattr(kind, "__torch_function__"):
            seen.add(kind)
            overloaded.append(arg)
    return overloaded


def has_torch_function(relevant_args):
    """True when an argument's type defines __torch_function__ (never for minitorch's own tensors).

    >>> F.has_torch_function((mt.ones(1), 2.0))
    False
    """
    return bool(_overloaded(relevant_args))


def has_torch_function_unary(arg):
    """has_torch_function for one argument.

    >>> F.has_torch_function_unary(mt.ones(1))
    False
    """
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """has_torch_function for arguments given one by one.

    >>> F.has_torch_function_variadic(mt.ones(1), mt.zeros(1))
    False
    """
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ of the overloaded arguments' types in turn until one does not return
    NotImplemented; TypeError if none handles the call (PyTorch's protocol).

    >>> class Logged:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return f"{func.__name__} handled"
    >>> F.handle_torch_function(F.relu, (Logged(),), Logged())
    'relu handled'
    """
    overloaded = _overloaded(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{getattr(public_api, '__module__', '')}.{public_api.__name__}' on types "
                    f"that implement __torch_function__: {list(types)}")


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name=None, func_name=None):
    """A function that calls if_true or if_false depending on one boolean argument (by name, else by position),
    as torch's (max_pool2d and max_pool2d_with_indices are made this way).

    >>> pick = F.boolean_dispatch("flag", 1, False, lambda x, flag=False: "true", lambda x, flag=False: "false", None, "pick")
    >>> pick(1), pick(1, True), pick(1, flag=True)
    ('false', 'true', 'true')
    """
    def dispatch(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    dispatch.__doc__ = if_true.__doc__ or if_false.__doc__
    if module_name is not None:
        dispatch.__module__ = module_name
    if func_name is not None:
        dispatch.__name__ = func_name
    return dispatch


def assert_int_or_pair(arg, arg_name, message):
    """Raises AssertionError(message.format(arg_name)) unless arg is an int or has two elements.

    >>> F.assert_int_or_pair((2, 3), "kernel_size", "{} must be an int or a pair")
    """
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
