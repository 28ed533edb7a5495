"""Drawing a Picture: a PNG with matplotlib alone, or Graphviz DOT text.

The PNG has the title, the legend (one swatch per style used) and any notes
at the top, then the layered drawing (layout.py): rounded boxes for tensors,
square ones for ops, dashed boxes for modules, arrows in the forward direction.

matplotlib is imported by the functions that draw, at the first drawing, not
with minitorch: importing it took a third to a half of `import minitorch`'s
time, for a picture most programs never draw (tests/test_structure.py lists
this module's deferred imports).
"""
import textwrap

from .layout import FONT_SIZE, LINE_HEIGHT, PAD, layout
from .boxes import STYLES, picture


def draw(obj, path, names=None, group_by=None, dpi=110):
    """Draws the picture to a PNG at `path` with matplotlib alone (no Graphviz); returns `path`.

    Layers from the output (bottom) up to the inputs; arrows follow the
    forward pass. Colours are explained by the legend at the top: leaves
    green, constants grey, the output yellow, ops blue (orange once their
    backward function ran, with its step number). See picture() for what
    each box says; `group_by=model` draws a dashed box around each
    nn.Module's ops.

    >>> import os, tempfile
    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> path = mt.viz.draw((x * x).sum(), os.path.join(tempfile.mkdtemp(), "graph.png"))
    >>> open(path, "rb").read(8) == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # deferred: see the module's docstring
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch

    pic = picture(obj, names, group_by)
    shape = layout(pic)
    margin = 0.3
    fig_width = max(shape.width, 6.0) + 2 * margin
    notes = [line for note in pic.notes for line in textwrap.wrap("note: " + note, int((fig_width - 2 * margin) / 0.065))]
    rows = _legend_rows(pic.legend, fig_width - 2 * margin)
    header = 0.3 + 0.22 * len(rows) + 0.15 * len(notes) + 0.25
    fig_height = shape.height + header + 2 * margin
    figure = Figure(figsize=(fig_width, fig_height))
    FigureCanvasAgg(figure)  # no pyplot: no display or global backend needed
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_axis_off()
    axes.set_xlim(0, fig_width)
    axes.set_ylim(0, fig_height)
    x0, y0 = margin + (max(shape.width, 6.0) - shape.width) / 2, margin
    place, rectangles = shape.place, shape.rectangles
    for name, (l, b, r, t) in reversed(list(rectangles.items())):  # outermost first, the inner ones on top
        axes.add_patch(FancyBboxPatch((x0 + l, y0 + b), r - l, t - b, boxstyle="round,pad=0,rounding_size=0.08",
                                      fc="#f4f6fb" if name else "#fbfbfb", ec="#7a869a", ls="--", lw=0.8, zorder=0))
        axes.text(x0 + l + 0.06, y0 + t - 0.04, pic.groups[name], ha="left", va="top", fontsize=FONT_SIZE - 0.5,
                  color="#4a5568", style="italic", zorder=1)
    patches = {}
    for key, box in pic.boxes.items():
        x, y, w, h = place[key]
        style = "square,pad=0" if key[0] == "op" else "round,pad=0,rounding_size=0.06"
        patches[key] = axes.add_patch(FancyBboxPatch(
            (x0 + x - w / 2, y0 + y - h / 2), w, h, boxstyle=style, fc=STYLES[box.style][1],
            ec="#2b4c7e" if key[0] == "op" else "#555555", lw=0.8, zorder=3))
        top_line = y0 + y + h / 2 - PAD
        axes.text(x0 + x - w / 2 + PAD, top_line, box.lines[0], ha="left", va="top", family="monospace",
                  fontsize=FONT_SIZE, fontweight="bold", zorder=4)
        if len(box.lines) > 1:
            axes.text(x0 + x - w / 2 + PAD, top_line - LINE_HEIGHT, "\n".join(box.lines[1:]), ha="left", va="top",
                      family="monospace", fontsize=FONT_SIZE, linespacing=1.3, zorder=4)
    for a, b in pic.edges:  # centre to centre, cut at the boxes' borders
        (xa, ya, _, _), (xb, yb, _, _) = place[a], place[b]
        axes.annotate("", xy=(x0 + xb, y0 + yb), xytext=(x0 + xa, y0 + ya),
                      arrowprops=dict(arrowstyle="-|>", color="#555555", lw=0.7, shrinkA=1, shrinkB=1,
                                      mutation_scale=8, patchA=patches[a], patchB=patches[b]), zorder=2)
    _draw_header(axes, pic.title, rows, notes, fig_height, margin)
    figure.savefig(path, dpi=dpi)
    return path


def _legend_rows(legend, width):
    """The legend's entries in rows that fit `width` inches: [[(x offset, text, colour)]]."""
    rows, x = [[]], 0.0
    for text, colour in legend:
        entry_width = 0.45 + len(text) * 0.065
        if rows[-1] and x + entry_width > width:
            rows.append([])
            x = 0.0
        rows[-1].append((x, text, colour))
        x += entry_width
    return rows


def _draw_header(axes, title, rows, notes, fig_height, margin):
    """Title, legend (a swatch and its text per style used) and notes, at the top."""
    from matplotlib.patches import FancyBboxPatch  # deferred: see the module's docstring

    y = fig_height - margin
    axes.text(margin, y, title, ha="left", va="top", fontsize=9, fontweight="bold")
    y -= 0.3
    for row in rows:
        for x, text, colour in row:
            dashed = colour == "none"
            axes.add_patch(FancyBboxPatch((margin + x, y - 0.12), 0.22, 0.13, boxstyle="round,pad=0,rounding_size=0.02",
                                          fc="#f4f6fb" if dashed else colour, ec="#7a869a" if dashed else "#555555",
                                          ls="--" if dashed else "-", lw=0.8))
            axes.text(margin + x + 0.28, y - 0.055, text, ha="left", va="center", fontsize=FONT_SIZE)
        y -= 0.22
    for line in notes:
        axes.text(margin, y - 0.03, line, ha="left", va="top", fontsize=FONT_SIZE, color="#9b2c2c")
        y -= 0.15


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(obj, names=None, group_by=None):
    """Graphviz DOT text of the picture: tensor and op nodes with their labels, edges, a cluster per module.

    Tensor nodes are `t0`, `t1`, ... and op nodes `op0`, `op1`, ... in drawing
    order; edges run input -> op -> output. Render with Graphviz
    (`dot -Tpng`) if you have it, or use draw().

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> print(mt.viz.to_dot((x * x).sum(), names={"x": x}))
    digraph minitorch {
      node [fontname="Helvetica", fontsize=10];
      t0 [shape=ellipse, style=filled, fillcolor="#d9f2d9", label="x  (2,)\\nvalue [1, 2]"];
      op0 [shape=box, style="rounded,filled", fillcolor="#dbe8f6", label="Mul\\nkeeps inputs x"];
      t1 [shape=ellipse, style=filled, fillcolor="#ffffff", label="t1  (2,)"];
      op1 [shape=box, style="rounded,filled", fillcolor="#dbe8f6", label="Sum\\nkeeps nothing"];
      t2 [shape=ellipse, style=filled, fillcolor="#fff3c4", label="t2  ()\\nvalue 5"];
      t0 -> op0;
      op0 -> t1;
      t1 -> op1;
      op1 -> t2;
    }
    """
    pic = picture(obj, names, group_by)
    ids, counts = {}, {"t": 0, "op": 0}
    for key in pic.boxes:
        ids[key] = f"{key[0]}{counts[key[0]]}"
        counts[key[0]] += 1
    lines = ["digraph minitorch {", '  node [fontname="Helvetica", fontsize=10];']
    clusters = {name: [] for name in pic.groups}
    for key, box in pic.boxes.items():
        shape = "shape=box, style=\"rounded,filled\"" if key[0] == "op" else "shape=ellipse, style=filled"
        text = f'  {ids[key]} [{shape}, fillcolor="{STYLES[box.style][1]}", label="{_dot_escape(chr(10).join(box.lines))}"];'
        lines.append(text.replace("\n", "\\n"))
        if box.group in clusters:
            clusters[box.group].append(ids[key])
    lines += _clusters(pic, clusters)
    lines += [f"  {ids[a]} -> {ids[b]};" for a, b in pic.edges]
    lines += [f"  // note: {note}" for note in pic.notes]
    lines.append("}")
    return "\n".join(lines)


def _clusters(pic, members):
    """One DOT cluster per module, nested as the modules are (a node sits in its innermost module's)."""
    number = {name: i for i, name in enumerate(pic.groups)}

    def children(parent):
        return [n for n in pic.groups if n != parent and _parent(n, pic.groups) == parent]

    def emit(name, indent):
        text = [f'{indent}subgraph cluster_{number[name]} {{ label="{_dot_escape(pic.groups[name])}"; style=dashed;']
        text += [f"{indent}  {member};" for member in members[name]]
        for child in children(name):
            text += emit(child, indent + "  ")
        return text + [f"{indent}}}"]

    return [line for top in pic.groups if _parent(top, pic.groups) is None for line in emit(top, "  ")]


def _parent(name, groups):
    """The innermost group holding `name` ("" holds every other one), or None."""
    if name == "":
        return None
    parts = name.split(".")
    for end in range(len(parts) - 1, -1, -1):
        candidate = ".".join(parts[:end])
        if candidate in groups:
            return candidate
    return None
