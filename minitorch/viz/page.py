"""The stepping page: one self-contained HTML file (inline SVG, CSS and JavaScript) that replays a reverse pass.

    page(graph, names)   the HTML text for a Graph with Steps (autograd/replay.py, or a capture)

Python does all the work: the layout (layout.py, as the PNG pictures have it),
every text (values and gradients printed as the pictures print them, and as
print(tensor) does on hover), the heat-maps of 2-d tensors (PNGs written with
zlib), and for each step what it shows. page.js only shows step k of them:
it computes no gradient. The page loads nothing: no network, opens from file://.

What a test can read (docs/explore.md): every tensor box is an element with
data-tensor (its name), data-value and data-grad (JSON of its numbers; data-grad
is empty until its gradient is complete); every op box has data-op (the op's
name) and data-step (the step it runs at); the controls have ids step, back,
run and reset; document.body.dataset.step is the current step, .steps the total.
"""
import base64
import html
import inspect
import json
import struct
import zlib
from importlib import resources

import numpy as np

from ..autograd.graph import Summary
from ..engine.registry import OPS
from ..printing import format_tensor
from ..tensor import Tensor
from .boxes import DIGITS, STYLES, _shape_text, _wrap, picture
from .layout import CHAR_WIDTH, FONT_SIZE, LINE_HEIGHT, PAD, layout

SCALE = 120  # pixels per inch of the layout (FONT_SIZE points at this scale: monospace text fits its boxes)
MARGIN = 16  # pixels around the drawing
HEAT_LINES = 3  # lines of a box a heat-map takes
HEAT_MAX = (24, 64)  # at most this many rows and columns of a tensor are sampled for its heat-map
NOT_YET = "grad  ·"  # until its gradient is complete
NO_GRADIENT = "no gradient"
COMPARE_RTOL, COMPARE_ATOL = 1e-5, 1e-8  # a student's gradient "differs" from minitorch's past these


def _json_numbers(x):
    """data-value / data-grad: the numbers, as nested lists in the tensor's shape (a Summary: its values, or
    {min, mean, max} when it kept only those)."""
    if x is None:
        return ""
    if isinstance(x, Summary):
        if x.values is None:
            return json.dumps({"min": x.low, "mean": x.mean, "max": x.high})
        x = x.values
    array = np.asarray(x)
    if array.dtype == bool:
        array = array.astype(np.int64)
    return json.dumps(array.tolist())


def _text(x, digits=DIGITS):
    return (x if isinstance(x, Summary) else Summary(x)).text(digits)


def _printed(x):
    """As print(tensor) shows it (summarised past 1000 elements, as PyTorch); a Summary: its text."""
    if isinstance(x, Summary):
        return x.text()
    return format_tensor(Tensor._make(np.asarray(x)))


def _png(rgb):
    """A PNG (bytes) of an (h, w, 3) uint8 array, with zlib alone."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + row.tobytes() for row in rgb)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def heat_map(array):
    """A data: URL of a small PNG of a 2-d array: red positive, blue negative, white 0, scaled by the largest |value|;
    rows and columns past HEAT_MAX are sampled evenly. None for anything but a 2-d array."""
    if not isinstance(array, np.ndarray) or array.ndim != 2 or array.size <= 6 or array.dtype.kind not in "fiu":
        return None
    rows = np.unique(np.linspace(0, array.shape[0] - 1, min(array.shape[0], HEAT_MAX[0])).round().astype(int))
    cols = np.unique(np.linspace(0, array.shape[1] - 1, min(array.shape[1], HEAT_MAX[1])).round().astype(int))
    values = np.nan_to_num(array[np.ix_(rows, cols)].astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    scale = float(np.max(np.abs(values))) or 1.0
    v = np.clip(values / scale, -1.0, 1.0)
    fade = 1.0 - np.abs(v)
    rgb = np.stack([np.where(v > 0, 1.0, fade), fade, np.where(v < 0, 1.0, fade)], axis=-1)
    png = _png(np.round(rgb * 255).astype(np.uint8))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def formula(op_type):
    """The gradient formula of an op: its gradient function's docstring in the op table."""
    row = OPS.get(op_type)
    doc = row.grad.__doc__ if row is not None and row.grad is not None else None
    return inspect.cleandoc(doc) if doc else "(the op table's gradient function has no formula in its docstring)"


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class _Tensors:
    """Per tensor: its display name, and when its gradient is complete (the step of the last gradient sent to
    it; 0 for the target, whose gradient is there before the first step)."""

    def __init__(self, graph, names):
        self.label = graph.names(names)
        self.received = {}  # tensor id -> number of gradients sent to it so far, while the steps are read
        self.complete = {}
        for k, step in enumerate(graph.steps, 1):
            for tid, grad in zip(graph.ops[step.op].input_ids, step.in_grads):
                if grad is not None:
                    self.complete[tid] = k
        seeds = graph.roots or {tid for tid in graph.targets() if not any(tid in graph.side_outputs(op) for op in graph.ops)}
        for tid in seeds:
            if tid in graph.tensors and graph.tensors[tid].grad is not None and tid not in self.complete:
                self.complete[tid] = 0


def _final_grad(node):
    return node.grad_array if node.grad_array is not None else node.grad


def _final_value(node):
    return node.value_array if node.value_array is not None else node.value


def _differs(mine, theirs):
    """Do two gradients (arrays, Summaries or None) differ?"""
    if (mine is None) != (theirs is None):
        return True
    if mine is None:
        return False
    if isinstance(mine, Summary) or isinstance(theirs, Summary):
        return _text(mine) != _text(theirs)
    return mine.shape != theirs.shape or not np.allclose(mine, theirs, rtol=COMPARE_RTOL, atol=COMPARE_ATOL, equal_nan=True)


def first_difference(graph, reference):
    """The first step (1-based) where `graph`'s pass differs from `reference`'s (another op runs, or another
    gradient is sent); None when they agree."""
    for k, (mine, theirs) in enumerate(zip(graph.steps, reference.steps), 1):
        if graph.ops[mine.op].op_type != reference.ops[theirs.op].op_type or any(
                _differs(a, b) for a, b in zip(mine.in_grads, theirs.in_grads)):
            return k
    if len(graph.steps) != len(reference.steps):
        return min(len(graph.steps), len(reference.steps)) + 1
    return None


def marked_step(graph, reference, notes=None):
    """The step the page marks: the first where `graph` differs from `reference`, or that has a note (a problem)."""
    found = [k for k in (notes or {})]
    if reference is not None:
        found.append(first_difference(graph, reference))
    found = [k for k in found if k is not None]
    return min(found) if found else None


def _step_data(graph, tensors, k, step, reference, notes):
    """What step k shows, as data for page.js."""
    op = graph.ops[step.op]
    label = tensors.label
    arrived = [[label[tid], _text(g, 4) if g is not None else "None (nothing reached it)"]
               for tid, g in zip(op.output_ids, step.out_grads)]
    sent = []
    for i, (tid, grad) in enumerate(zip(op.input_ids, step.in_grads)):
        if grad is None:
            sent.append([f"t{tid}", label[tid], "", 0, "no gradient needed"])
            continue
        count = tensors.received[tid] = tensors.received.get(tid, 0) + 1
        note = f"its {_ordinal(count)} gradient: +=" if count > 1 else ""
        if step.broadcast[i] is not None:
            note += (", " if note else "") + (f"returned as {tuple(step.broadcast[i])}, summed back to "
                                              f"{tuple(graph.tensors[tid].shape)} by the tape")
        sent.append([f"t{tid}", label[tid], _text(grad, 4), count, note])
    data = {"op": f"op{op.index}", "name": op.op_type, "formula": formula(op.op_type), "arrived": arrived,
            "sent": sent, "complete": [f"t{tid}" for tid, at in tensors.complete.items() if at == k],
            "note": notes.get(k, "")}
    if reference is not None and k <= len(reference.steps):
        theirs = reference.steps[k - 1]
        data["reference"] = [[label.get(tid, "?"), _text(g, 4) if g is not None else "no gradient"]
                             for tid, g in zip(reference.ops[theirs.op].input_ids, theirs.in_grads)]
    return data


def _edge_path(a, b):
    """A straight line from box a's border to box b's (centre to centre, cut at the borders), in pixels."""
    (xa, ya, wa, ha), (xb, yb, wb, hb) = a, b
    dx, dy = xb - xa, yb - ya

    def cut(w, h):
        return min(w / 2 / abs(dx) if dx else np.inf, h / 2 / abs(dy) if dy else np.inf)

    ta, tb = cut(wa, ha), 1 - cut(wb, hb)
    return f"M{xa + ta * dx:.1f},{ya + ta * dy:.1f} L{xa + tb * dx:.1f},{ya + tb * dy:.1f}"


def _attr(text):
    return html.escape(str(text), quote=True)


def _text_line(x, y, text, css="line"):
    return f'<text class="{css}" x="{x:.1f}" y="{y:.1f}">{html.escape(text)}</text>'


def _page_lines(graph, tid, label):
    """The lines of a tensor box: name and shape, value, gradient (room for its final text), heat-maps."""
    node = graph.tensors[tid]
    value, grad = _final_value(node), _final_grad(node)
    value_lines = _wrap(f"value {_text(value)}") if value is not None else ["value not kept by the tape"]
    grad_lines = _wrap(f"grad  {_text(grad)}") if grad is not None else [NO_GRADIENT]
    heat = heat_map(node.value_array) is not None or heat_map(node.grad_array) is not None
    return [f"{label}  {_shape_text(node)}"] + value_lines, grad_lines, heat


def _svg(graph, names, tensors, first_difference_step):
    """The drawing: module boxes, edges, tensor and op boxes, with the contract's data attributes."""
    pic = picture(graph, names)
    label = tensors.label
    grad_lines, heat = {}, {}
    for key, box in pic.boxes.items():
        if key[0] == "t":
            head, grad_lines[key], heat[key] = _page_lines(graph, key[1], label[key[1]])
            box.lines = head + grad_lines[key] + [""] * (HEAT_LINES if heat[key] else 0)
    shape = layout(pic)
    width, height = shape.width * SCALE + 2 * MARGIN, shape.height * SCALE + 2 * MARGIN

    def pixels(x, y, w, h):  # layout inches, y up -> pixels, y down
        return MARGIN + x * SCALE, MARGIN + (shape.height - y) * SCALE, w * SCALE, h * SCALE

    place = {key: pixels(*p) for key, p in shape.place.items()}
    parts = [f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" style="font-size:{FONT_SIZE / 72 * SCALE:.2f}px">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    inner = {name for name in pic.groups if not any(o != name and (name == "" or o.startswith(name + ".")) for o in pic.groups)}
    ops_in = {}
    for key, box in pic.boxes.items():
        if key[0] == "op" and box.group is not None:
            for name in pic.groups:
                if box.group == name or name == "" or box.group.startswith(name + "."):
                    ops_in.setdefault(name, []).append(key[1])
    covers = []  # a module holding no other is folded under a cover, drawn over its boxes; a click unfolds it
    for name, (l, b, r, t) in reversed(list(shape.rectangles.items())):
        x, y, w, h = pixels((l + r) / 2, (b + t) / 2, r - l, t - b)
        folds = name in inner and name != ""
        rect = f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6"/>'
        label_at = (x - w / 2 + 5, y - h / 2 + LINE_HEIGHT * SCALE * 0.85)
        parts.append(f'<g class="module{" foldable" if folds else ""}" data-module="{_attr(name)}">{rect}'
                     + _text_line(*label_at, pic.groups[name], "module-label") + "</g>")
        if folds:
            ops = [graph.ops[i] for i in ops_in.get(name, [])]
            kinds = ", ".join(dict.fromkeys(op.op_type for op in ops))
            covers.append(f'<g class="cover folded" data-module="{_attr(name)}" data-ops="{" ".join(f"op{op.index}" for op in ops)}">'
                          f'{rect}{_text_line(*label_at, pic.groups[name], "module-label")}'
                          f'{_text_line(label_at[0], label_at[1] + LINE_HEIGHT * SCALE, f"{len(ops)} ops: {kinds}")}'
                          f'{_text_line(label_at[0], label_at[1] + 2 * LINE_HEIGHT * SCALE, "click to unfold")}</g>')
    for a, b in pic.edges:
        parts.append(f'<path class="edge" data-from="{a[0]}{a[1]}" data-to="{b[0]}{b[1]}" '
                     f'd="{_edge_path(place[a], place[b])}" marker-end="url(#arrow)"/>')
    line_px, pad_px = LINE_HEIGHT * SCALE, PAD * SCALE
    for key, box in pic.boxes.items():
        x, y, w, h = place[key]
        left, top = x - w / 2, y - h / 2
        lines = [_text_line(left + pad_px, top + pad_px + (i + 0.8) * line_px, line, "head" if i == 0 else "line")
                 for i, line in enumerate(box.lines) if line]
        if key[0] == "op":
            op = graph.ops[key[1]]
            step = str(op.backward_steps[-1]) if op.backward_steps else ""
            css = "op" + (" differs" if first_difference_step and step == str(first_difference_step) else "")
            parts.append(f'<g class="{css}" id="op{op.index}" data-op="{_attr(op.op_type)}" data-step="{step}">'
                         f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}"/>{"".join(lines)}'
                         f'<title>{html.escape(formula(op.op_type))}</title></g>')
            continue
        tid = key[1]
        node = graph.tensors[tid]
        value = _final_value(node)
        n_head = len(box.lines) - len(grad_lines[key]) - (HEAT_LINES if heat[key] else 0)
        lines = lines[:n_head]
        grad_y = [top + pad_px + (n_head + i + 0.8) * line_px for i in range(len(grad_lines[key]))]
        if tid in tensors.complete:
            lines += [f'<text class="grad" x="{left + pad_px:.1f}" y="{gy:.1f}">{NOT_YET if i == 0 else ""}</text>'
                      for i, gy in enumerate(grad_y)]
        else:  # no gradient reaches it in this pass (a constant, labels, a branch no leaf needs)
            lines.append(_text_line(left + pad_px, grad_y[0], NO_GRADIENT, "line"))
        if heat[key]:
            hy, hw = top + pad_px + (len(box.lines) - HEAT_LINES) * line_px, (w - 3 * pad_px) / 2
            value_map = heat_map(node.value_array)
            if value_map:
                lines.append(f'<image class="heat" x="{left + pad_px:.1f}" y="{hy:.1f}" width="{hw:.1f}" '
                             f'height="{HEAT_LINES * line_px - 2:.1f}" preserveAspectRatio="none" href="{value_map}">'
                             f'<title>value (red +, blue -, white 0)</title></image>')
            lines.append(f'<image class="heat grad-heat" x="{left + 2 * pad_px + hw:.1f}" y="{hy:.1f}" width="{hw:.1f}" '
                         f'height="{HEAT_LINES * line_px - 2:.1f}" preserveAspectRatio="none" href=""/>')
        hover = f"{label[tid]} = {_printed(value)}" if value is not None else f"{label[tid]}: value not kept by the tape"
        parts.append(f'<g class="tensor {box.style}" id="t{tid}" data-tensor="{_attr(label[tid])}" '
                     f'data-value="{_attr(_json_numbers(value))}" data-grad="">'
                     f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="7"/>{"".join(lines)}'
                     f'<title>{html.escape(hover)}</title><text class="badge" x="{left + w - 4:.1f}" y="{top - 3:.1f}">'
                     f'</text></g>')
    parts += covers
    parts.append("</svg>")
    return "".join(parts), pic


def _gradients(graph, tensors):
    """tensor key -> what its box shows once its gradient is complete: data-grad, lines, hover text, heat-map."""
    result = {}
    for tid, step in tensors.complete.items():
        grad = _final_grad(graph.tensors[tid])
        if grad is None:
            continue
        result[f"t{tid}"] = {"step": step, "name": tensors.label[tid], "json": _json_numbers(grad),
                             "lines": _wrap(f"grad  {_text(grad)}"),
                             "print": f"grad of {tensors.label[tid]} = {_printed(grad)}",
                             "heat": heat_map(grad) if isinstance(grad, np.ndarray) else None}
    return result


def page(graph, names=None, title=None, reference=None, notes=None):
    """The HTML text of the stepping page for `graph` (a Graph with Steps: autograd/replay.py, or a capture).

    `reference`: the same pass run by minitorch's own gradients (the exercises): the first step where
    `graph`'s differs, or that has a note, is marked. `notes`: {step: text} shown at that step.
    """
    tensors = _Tensors(graph, names)
    marked = marked_step(graph, reference, notes)
    svg, pic = _svg(graph, names, tensors, marked)
    steps = [_step_data(graph, tensors, k, step, reference, notes or {}) for k, step in enumerate(graph.steps, 1)]
    data = {"steps": steps, "gradients": _gradients(graph, tensors), "firstDifference": marked}
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    legend = "".join(f'<span class="key"><span class="swatch {style.replace(" ", "-")}"></span>{html.escape(text)}</span>'
                     for style, (text, _) in STYLES.items() if any(b.style == style for b in pic.boxes.values()))
    page_notes = "".join(f"<p class=\"note\">note: {html.escape(n)}</p>" for n in dict.fromkeys(graph.notes))
    if marked is not None:
        page_notes += (f'<p class="note differs-note">Step {marked} is the first where your gradients differ from '
                       "minitorch's: it is marked in red.</p>")
    css = resources.files(__package__).joinpath("page.css").read_text()
    script = resources.files(__package__).joinpath("page.js").read_text()
    heading = html.escape(title or graph.title)
    first = f' data-first-difference="{marked}"' if marked is not None else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{heading}</title><style>{css}</style></head>
<body data-step="0" data-steps="{len(steps)}"{first}>
<header><h1>{heading}</h1>
<nav><button id="reset" title="Home">Reset</button><button id="back" title="left arrow">&#9664; Back</button>
<button id="step" title="right arrow">Step &#9654;</button><button id="run" title="End">Run to end</button>
<span id="counter">step 0 of {len(steps)}</span></nav>
<div class="legend">{legend}<span class="key"><span class="swatch current"></span>the op whose backward runs now</span>
<span class="key"><span class="swatch complete"></span>gradient complete</span></div>{page_notes}</header>
<main><div id="drawing">{svg}</div><aside id="panel"></aside></main>
<script type="application/json" id="replay-data">{payload}</script>
<script>{script}</script>
</body></html>
"""
