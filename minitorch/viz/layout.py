"""Where each box of a picture goes: layers from the output up, each box sized by its text.

A layered drawing kept simple enough to read:
  1. layers: a box sits one layer above the boxes it feeds (the output at the
     bottom, inputs at the top); a parameter or constant that feeds an op
     together with a computed tensor sits beside that op instead, so that a
     layer's weights stay inside the layer's box;
  2. in each layer, from the bottom up, a box wants to be above the mean of
     the boxes it feeds; boxes are swept left to right so none overlap, and
     the layer is shifted so that its computed tensors and ops get their wish
     (the main path is straight, parameters hang on its right);
  3. layers are spaced so that module boxes (group_by) fit between them.
Units are inches, y grows upwards. Text is monospace, so a box's size follows
from its number of lines and its longest line.
"""
import numpy as np

FONT_SIZE = 7.5  # points
CHAR_WIDTH = 0.0627  # inches per character of DejaVu Sans Mono at FONT_SIZE
LINE_HEIGHT = 0.136  # inches per line at FONT_SIZE, linespacing 1.3
PAD = 0.07  # inches of padding inside a box
GAP_X, GAP_Y = 0.3, 0.34  # inches between boxes in a layer, between layers
SIDE_STYLES = ("leaf", "constant")


class Layout:
    """`place`: key -> (x centre, y centre, width, height); `rectangles`: module -> (left, bottom, right, top);
    `width`, `height`: the extent of both, from (0, 0)."""

    def __init__(self, place, rectangles, width, height):
        self.place, self.rectangles, self.width, self.height = place, rectangles, width, height


def box_size(box):
    """(width, height) of a box in inches."""
    return max(map(len, box.lines)) * CHAR_WIDTH + 2 * PAD, len(box.lines) * LINE_HEIGHT + 2 * PAD


def _topological_order(keys, successors):
    indegree = dict.fromkeys(keys, 0)
    for key in keys:
        for b in successors[key]:
            indegree[b] += 1
    order, ready = [], [key for key in keys if indegree[key] == 0]
    while ready:  # Kahn's algorithm
        key = ready.pop()
        order.append(key)
        for b in successors[key]:
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    return order


def layers(pic):
    """Key -> layer (0 at the bottom), and key -> the keys it feeds."""
    successors = {key: [] for key in pic.boxes}
    predecessors = {key: [] for key in pic.boxes}
    for a, b in pic.edges:
        successors[a].append(b)
        predecessors[b].append(a)
    depth = {}
    for key in reversed(_topological_order(list(pic.boxes), successors)):
        depth[key] = 1 + max((depth[b] for b in successors[key]), default=-1)
    for key, box in pic.boxes.items():
        feeds = set(successors[key])
        if box.style in SIDE_STYLES and len(feeds) == 1:
            (op,) = feeds
            if any(pic.boxes[p].style not in SIDE_STYLES for p in predecessors[op]):
                depth[key] = depth[op]  # beside its op
    return depth, successors


def _nesting(pic):
    """Module -> how many levels of modules it holds (0 for one holding none)."""
    levels = {}
    for name in sorted(pic.groups, key=lambda n: -_level(n)):
        children = [c for c in levels if _inside(c, name)]
        levels[name] = 1 + max((levels[c] for c in children), default=-1)
    return levels


def _level(name):
    return name.count(".") + 1 if name else 0


def _inside(child, name):
    return child != name and (name == "" or child.startswith(name + "."))


def _padding(levels, name):
    return 0.05 + 0.07 * levels[name]


def _group_spaces(pic, depth, levels):
    """Per layer, the room module boxes need above its boxes (their padding and label) and below."""
    spans = {}
    for key, box in pic.boxes.items():
        for name in pic.groups:
            if box.group is not None and (box.group == name or _inside(box.group, name)):
                low, high = spans.get(name, (depth[key], depth[key]))
                spans[name] = (min(low, depth[key]), max(high, depth[key]))
    above, below = {}, {}
    for name in sorted(spans, key=lambda n: -_level(n)):  # innermost first: an outer box holds the inner ones
        low, high = spans[name]
        inner = [c for c in spans if _inside(c, name)]
        top = _padding(levels, name) + LINE_HEIGHT + max((above.get((c, high), 0.0) for c in inner if spans[c][1] == high),
                                                         default=0.0)
        bottom = _padding(levels, name) + max((below.get((c, low), 0.0) for c in inner if spans[c][0] == low),
                                              default=0.0)
        above[(name, high)], below[(name, low)] = top, bottom
    room_above, room_below = {}, {}
    for (name, layer), space in above.items():
        room_above[layer] = max(room_above.get(layer, 0.0), space)
    for (name, layer), space in below.items():
        room_below[layer] = max(room_below.get(layer, 0.0), space)
    return room_above, room_below


def _place_layer(pic, layer, successors, x_of, sizes, appearance):
    """x centre of each key of one layer."""
    side = {k: pic.boxes[k].style in SIDE_STYLES for k in layer}
    wanted, hand, beside = {}, {}, {}
    for key in sorted(layer, key=lambda k: (side[k], appearance[k])):  # a box beside an op wants the op's place
        xs = [x_of[s] if s in x_of else wanted.get(s) for s in successors[key]]
        xs = [x for x in xs if x is not None]
        wanted[key] = sum(xs) / len(xs) if xs else 0.0
        hand[key] = 0
        same_layer = [s for s in successors[key] if s in wanted and s not in x_of]
        if side[key] and same_layer:  # beside an op: first on its right, then its left, then right...
            count = beside[same_layer[0]] = beside.get(same_layer[0], 0) + 1
            hand[key] = 1 if count % 2 else -1
        elif side[key]:
            hand[key] = 1
    layer = sorted(layer, key=lambda k: (wanted[k], hand[k], appearance[k]))
    xs, right = [], -np.inf
    for key in layer:  # left to right, each box as near its wish as the one before allows
        width = sizes[key][0]
        x = max(wanted[key], right + GAP_X + width / 2)
        xs.append(x)
        right = x + width / 2
    anchors = [(k, x) for k, x in zip(layer, xs) if not side[k]] or list(zip(layer, xs))
    shift = float(np.mean([wanted[k] - x for k, x in anchors]))
    return {key: x + shift for key, x in zip(layer, xs)}


def layout(pic):
    """The Layout of a Picture."""
    if not pic.boxes:
        return Layout({}, {}, 1.0, 1.0)
    depth, successors = layers(pic)
    levels = _nesting(pic)
    room_above, room_below = _group_spaces(pic, depth, levels)
    appearance = {key: i for i, key in enumerate(pic.boxes)}
    sizes = {key: box_size(box) for key, box in pic.boxes.items()}
    by_layer = {}
    for key, d in depth.items():
        by_layer.setdefault(d, []).append(key)
    x_of, place = {}, {}
    bottom = room_below.get(0, 0.0)
    for d in range(max(by_layer) + 1):
        layer = by_layer.get(d, [])
        if not layer:
            continue
        x_of.update(_place_layer(pic, layer, successors, x_of, sizes, appearance))
        height = max(sizes[k][1] for k in layer)
        for key in layer:
            place[key] = (x_of[key], bottom + height / 2, *sizes[key])
        bottom += height + room_above.get(d, 0.0) + GAP_Y + room_below.get(d + 1, 0.0)
    rectangles = _rectangles(pic, place, levels)
    edges = [(x - w / 2, x + w / 2) for x, _, w, _ in place.values()] + [(r[0], r[2]) for r in rectangles.values()]
    left, right = min(e[0] for e in edges), max(e[1] for e in edges)
    top = max([y + h / 2 for _, y, _, h in place.values()] + [r[3] for r in rectangles.values()])
    low = min([y - h / 2 for _, y, _, h in place.values()] + [r[1] for r in rectangles.values()])
    place = {key: (x - left, y - low, w, h) for key, (x, y, w, h) in place.items()}
    rectangles = {name: (l - left, b - low, r - left, t - low) for name, (l, b, r, t) in rectangles.items()}
    return Layout(place, rectangles, right - left, top - low)


def _rectangles(pic, place, levels):
    """Module -> (left, bottom, right, top) around its boxes and its submodules' rectangles, with room for its label."""
    members = {}
    for key, box in pic.boxes.items():
        if box.group is not None:
            members.setdefault(box.group, []).append(key)
    rectangles = {}
    for name in sorted(pic.groups, key=lambda n: -_level(n)):  # innermost first
        parts = [(x - w / 2, y - h / 2, x + w / 2, y + h / 2) for x, y, w, h in (place[k] for k in members.get(name, ()))]
        parts += [r for child, r in rectangles.items() if _inside(child, name)]
        if parts:
            pad = _padding(levels, name)
            rectangles[name] = (min(p[0] for p in parts) - pad, min(p[1] for p in parts) - pad,
                                max(p[2] for p in parts) + pad, max(p[3] for p in parts) + pad + LINE_HEIGHT)
    return rectangles
