"""The named tuples that reductions, sorts and decompositions return (PyTorch's `torch.return_types`).

`values, indices = x.max(dim=0)` unpacks like a tuple, and `x.max(dim=0).values`
reads by name, as in PyTorch. Each type carries the name of the function that
returns it, so a printed result says where it came from.
"""
from collections import namedtuple


def _return_type(name, fields):
    made = namedtuple(name, fields)
    made.__module__ = "minitorch.return_types"
    return made


max = _return_type("max", ["values", "indices"])
min = _return_type("min", ["values", "indices"])
aminmax = _return_type("aminmax", ["min", "max"])
sort = _return_type("sort", ["values", "indices"])
topk = _return_type("topk", ["values", "indices"])
kthvalue = _return_type("kthvalue", ["values", "indices"])
median = _return_type("median", ["values", "indices"])
nanmedian = _return_type("nanmedian", ["values", "indices"])
mode = _return_type("mode", ["values", "indices"])
cummax = _return_type("cummax", ["values", "indices"])
cummin = _return_type("cummin", ["values", "indices"])
histogram = _return_type("histogram", ["hist", "bin_edges"])
histogramdd = _return_type("histogramdd", ["hist", "bin_edges"])
slogdet = _return_type("slogdet", ["sign", "logabsdet"])
qr = _return_type("qr", ["Q", "R"])
svd = _return_type("svd", ["U", "S", "V"])
linalg_slogdet = _return_type("linalg_slogdet", ["sign", "logabsdet"])
linalg_qr = _return_type("linalg_qr", ["Q", "R"])
linalg_svd = _return_type("linalg_svd", ["U", "S", "Vh"])
linalg_eigh = _return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_lstsq = _return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
