"""Nested structures of tensors (lists, tuples, dicts), as TensorFlow's `nest` handles them.

Tapes, accumulators and the functional API accept a tensor or any nesting of
them and answer in the same structure.
"""


def flatten(structure):
    """The leaves of `structure` in order: lists and tuples item by item, dicts value by value.

    >>> mt.nest.flatten([1, (2, 3), {"a": 4}])
    [1, 2, 3, 4]
    """
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_like(structure, flat):
    """The items of the iterator `flat` arranged like `structure` (the inverse of `flatten`).

    >>> mt.nest.pack_like([0, (0, 0)], iter([1, 2, 3]))
    [1, (2, 3)]
    """
    if isinstance(structure, dict):
        return {key: pack_like(value, flat) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(pack_like(item, flat) for item in structure)
    return next(flat)


def map_structure(fn, structure):
    """`structure` with `fn` applied to every leaf.

    >>> mt.nest.map_structure(lambda x: x * 10, {"a": [1, 2]})
    {'a': [10, 20]}
    """
    return pack_like(structure, iter([fn(leaf) for leaf in flatten(structure)]))
