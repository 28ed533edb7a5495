"""Ops: each op's numpy kernel, gradient and forward rule side by side, one file per concept (*_ops.py), each
row written once with rows.op and kept in the op table (engine/registry.py); dims.py, coercion.py and
writes.py serve them (dims, dtypes, out=), in_place_twins.py makes their in-place twins."""
