"""Drawing the architecture (the paper's Figure 1) with plotly shapes, for the current model and input.

Plotly rather than SVG HTML: labels and shapes are drawn as plotly text (escaped here), so nothing
reaches the page as raw HTML, and the figure exports like every other. Boxes sit bottom to top as
data flows; the residual connections run beside each sublayer, the repeated layer is framed
"N ×", and in an encoder-decoder model the encoder's output feeds every cross-attention.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

import plotly.graph_objects as go

from viz.architecture import Box, format_shape
from viz.figure_parts import arrow
from viz.style import base_layout

BOX_W, BOX_H, ROW = 1.7, 0.74, 1.0  # data units: one row per box
ROW_PX = 68  # a row's height on screen: a box of 50 px holds its 18 px name and 16 px shape inside its border
LABEL_PX, SHAPE_PX = 18, 16  # at the projector's tick size already: the labels fill their boxes, so they are not enlarged
TOP_MARGIN_PX = 10
Y_ROWS = (-1.3, 0.5)  # the y range beyond the boxes' rows, in rows: the stacks' names below, "Output probabilities" above
# A diagram given a height (projector mode: what the first screen has left) gets rows of whatever fits. Below
# TWO_LINE_ROW_PX a box holds one line: its name, then its shape in a smaller grey where the whole line fits every box
# (else the shapes are in the hover only and the page says so under the figure).
TWO_LINE_ROW_PX = 60  # a box 0.74 row tall holds an 18 px name over a 16 px shape
FIT_LABEL_PX, FIT_SMALL_LABEL_PX, FIT_SHAPE_PX = 18, 16, 15  # one line: the name (16 px in boxes under 30 px), its shape
FIT_MIN_LABEL_PX = 15  # a name too long for its box at that size shrinks to fit, not below this
FIT_WIDTH_PX = 1120  # the main column of a 1280 px window, where projector mode is laid out
FIT_BOX_W, FIT_COLUMN_GAP = 2.6, 0.9  # one-line names need wider boxes; the stacks move closer (data units)
SHAPE_COLOR = "#555555"  # on the boxes' pastels: at least 5:1
COLUMN_X = {"encoder": 0.0, "decoder": 3.1}
COLORS = {  # pastel fills after the paper's figure, each with black text
    "tokens": "#ffffff",
    "embedding": "#f6c9c9",
    "positional": "#e9e9e9",
    "self_attn": "#fbd9a8",
    "masked_self_attn": "#fbd9a8",
    "cross_attn": "#fbd9a8",
    "feed_forward": "#c9e4f5",
    "add_norm": "#f3f0b0",
    "norm": "#f3f0b0",
    "add": "#f3f0b0",
    "final_norm": "#f3f0b0",
    "linear": "#d9d2ef",
    "softmax": "#cdebd3",
}
LINE = {"color": "#333333", "width": 1.5}


@dataclass(frozen=True)
class ArchitectureText:
    """The translated words of the diagram (pages pass them in; the defaults are the English ones).

    The box names depend on the model (its positional encoding, whether it has an encoder), so they have
    no default: `names` maps a component, or a box id such as "decoder.tokens" that overrides it, to its name.
    """

    names: Mapping[str, str]  # component or box id → the name on its box
    pages: Mapping[str, str]  # page → its title, after `see` in a box's hover
    details: Mapping[str, str] = field(default_factory=dict)  # component → the name of its second shape
    encoder: str = "Encoder"  # the stacks' names under them
    decoder: str = "Decoder"
    n_layers: str = "N = {n} ×"  # beside the repeated layer's frame; {n}: how many layers
    probabilities: str = "Output probabilities"  # above the decoder
    memory: str = "encoder output"  # on the line from the encoder to every cross-attention
    see: str = "Explained on:"

    def stack(self, stack: str) -> str:
        """The name under a stack ("encoder" or "decoder")."""
        return self.encoder if stack == "encoder" else self.decoder

    def name(self, box: Box) -> str:
        """The name on `box`: its own, else its component's."""
        return self.names.get(box.id) or self.names[box.component]


@dataclass(frozen=True)
class DiagramLayout:
    """Where the boxes go and what they hold: the paper-like two-line boxes at ROW_PX (the default), or rows
    fitted to a given height (`fitted_layout`)."""

    row_px: float = ROW_PX
    box_w: float = BOX_W
    column_gap: float = COLUMN_X["decoder"] - BOX_W  # between the two stacks' boxes
    one_line: bool = False  # the name alone on its line, the shape after it (when `shapes`)
    shapes: bool = True  # the shapes are drawn in the boxes (else only in their hover)
    name_px: int = LABEL_PX
    shape_px: int = SHAPE_PX
    height_px: int | None = None  # the whole figure's (None: as tall as rows of ROW_PX make it)
    box_px: float | None = None  # the room for a one-line label inside a box, estimated at FIT_WIDTH_PX

    def column_x(self, stack: str, n_stacks: int) -> float:
        """The centre of `stack`'s column (the encoder on the left)."""
        return self.box_w + self.column_gap if n_stacks > 1 and stack == "decoder" else 0.0

    def label(self, name: str, shape: str) -> tuple[str, int]:
        """A box's text, its name (escaped) and, where the layout shows it, its shape; and the name's font size.

        A one-line name wider than its box (a pretrained model's "+ Positional encoding (sin/cos: sines first, then
        cosines)") takes a smaller font, down to FIT_MIN_LABEL_PX, then two lines at that size."""
        if self.one_line and self.box_px is not None and label_width_px(name, self.name_px) > self.box_px:
            size = max(FIT_MIN_LABEL_PX, int(self.box_px / label_width_px(name, 1.0)))
            lines = [name] if label_width_px(name, size) <= self.box_px else _halves(name)
            return "<br>".join(f"<b>{html.escape(line)}</b>" for line in lines), size
        bold = f"<b>{html.escape(name)}</b>"
        if not self.shapes:
            return bold, self.name_px
        if self.one_line:
            return f"{bold}  <span style='font-size:{self.shape_px}px;color:{SHAPE_COLOR}'>{shape}</span>", self.name_px
        return f"{bold}<br><span style='font-size:{self.shape_px}px'>{shape}</span>", self.name_px


def _halves(name: str) -> list[str]:
    """`name` broken at the space nearest its middle (unbroken if it has none)."""
    spaces = [i for i, ch in enumerate(name) if ch == " "]
    if not spaces:
        return [name]
    cut = min(spaces, key=lambda i: abs(i - len(name) / 2))
    return [name[:cut], name[cut + 1 :]]


def diagram_rows(stacks: Mapping[str, list[Box]]) -> int:
    """The rows of the tallest stack (the decoder of an encoder-decoder model)."""
    return max(len(b) for b in stacks.values())


def fitted_layout(stacks: Mapping[str, list[Box]], text: ArchitectureText, height_px: int) -> DiagramLayout:
    """The layout whose rows fill `height_px` (the whole figure, its names and "Output probabilities" included).

    Roomy rows keep the paper-like boxes (name over shape); else every name goes on one line, at 18 px (16 px in
    boxes under 30 px), and the shapes follow the names, smaller and grey, if every box's line fits its box at
    FIT_WIDTH_PX; where one would not, no box shows its shape (the hover does), so no box looks unlike the rest."""
    rows = diagram_rows(stacks)
    row_px = (height_px - TOP_MARGIN_PX) / (rows + Y_ROWS[1] - Y_ROWS[0])  # the y range, in rows
    if row_px >= TWO_LINE_ROW_PX:
        return DiagramLayout(row_px=row_px, height_px=height_px)
    wide = DiagramLayout(row_px=row_px, box_w=FIT_BOX_W, column_gap=FIT_COLUMN_GAP, one_line=True)
    name_px = FIT_LABEL_PX if BOX_H * row_px >= 30 else FIT_SMALL_LABEL_PX
    box_px = wide.box_w * FIT_WIDTH_PX / _x_span(wide, len(stacks)) - 12  # 6 px inside each border
    lines = [
        label_width_px(text.name(b), name_px) + label_width_px("  " + format_shape(b.shape), FIT_SHAPE_PX)
        for bs in stacks.values()
        for b in bs
    ]
    return DiagramLayout(
        row_px=row_px,
        box_w=FIT_BOX_W,
        column_gap=FIT_COLUMN_GAP,
        one_line=True,
        shapes=max(lines) <= box_px,
        name_px=name_px,
        shape_px=FIT_SHAPE_PX,
        height_px=height_px,
        box_px=box_px,
    )


def label_width_px(text: str, font_px: float) -> float:
    """Estimated width of a box's text: wide characters (CJK) one em, others half an em (the labels' Latin letters
    and digits average under 0.5 em; `viz.tokens.text_width_px` reserves 0.62 em, which would drop the shapes from
    boxes they fit)."""
    return sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.5 for ch in text) * font_px


def _x_range(layout: DiagramLayout, n_stacks: int) -> tuple[float, float]:
    """The x range: the boxes, their residual lanes and N × frames, and the N × labels outside them."""
    right = layout.column_x("decoder", n_stacks)
    return -layout.box_w / 2 - 1.0, right + layout.box_w / 2 + 1.0


def _x_span(layout: DiagramLayout, n_stacks: int) -> float:
    low, high = _x_range(layout, n_stacks)
    return high - low


def _draw_stack(
    fig: go.Figure, boxes: list[Box], x: float, side: int, n_layers: int, text: ArchitectureText, layout: DiagramLayout
) -> None:
    """Boxes, arrows between them, residual lines on `side` (−1 left, +1 right) and the N × frame."""
    box_w = layout.box_w
    for i, box in enumerate(boxes):
        y = i * ROW
        dash = "dot" if box.component == "tokens" else "solid"
        fig.add_shape(
            type="rect",
            x0=x - box_w / 2,
            x1=x + box_w / 2,
            y0=y - BOX_H / 2,
            y1=y + BOX_H / 2,
            fillcolor=COLORS[box.component],
            line={**LINE, "dash": dash},
            layer="below",
        )
        label, size = layout.label(text.name(box), format_shape(box.shape))
        fig.add_annotation(x=x, y=y, showarrow=False, font={"size": size}, text=label)
        if i + 1 < len(boxes):
            arrow(fig, x, y + BOX_H / 2, x, y + ROW - BOX_H / 2)
    in_layer = [i for i, b in enumerate(boxes) if b.in_layer]
    if not in_layer:
        return
    edge, lane = x + side * box_w / 2, x + side * (box_w / 2 + 0.28)
    for group in sorted({boxes[i].group for i in in_layer}):
        members = [i for i in in_layer if boxes[i].group == group]
        start, end = (members[0] - 0.5) * ROW, members[-1] * ROW  # branch below the sublayer → its Add box
        fig.add_shape(type="path", path=f"M {x},{start} L {lane},{start} L {lane},{end}", line=LINE)
        arrow(fig, lane, end, edge, end)
    lo, hi = (in_layer[0] - 0.62) * ROW, (in_layer[-1] + 0.45) * ROW
    outer = x + side * (box_w / 2 + 0.45)
    fig.add_shape(
        type="rect",
        x0=min(x - side * (box_w / 2 + 0.12), outer),
        x1=max(x - side * (box_w / 2 + 0.12), outer),
        y0=lo,
        y1=hi,
        line={"color": "#777777", "width": 1.5, "dash": "dash"},
        layer="below",
    )
    fig.add_annotation(
        x=outer + side * 0.08,
        y=(lo + hi) / 2,
        showarrow=False,
        font={"size": 16},
        xanchor="left" if side > 0 else "right",
        text=html.escape(text.n_layers.format(n=n_layers)),
    )


def architecture_figure(
    stacks: Mapping[str, list[Box]], text: ArchitectureText, n_layers: int, layout: DiagramLayout | None = None
) -> go.Figure:
    """The whole diagram; hovering a box shows its shapes and the pages that explain it.

    `layout`: `fitted_layout` for a given height (projector mode: what is left of the first screen); None: the
    paper-like boxes in rows of ROW_PX, as tall as the model's stacks need."""
    layout = layout or DiagramLayout()
    fig = go.Figure()
    hover_x, hover_y, hover_text, ids = [], [], [], []
    for stack, boxes in stacks.items():
        x = layout.column_x(stack, len(stacks))
        side = -1 if stack == "encoder" else 1
        _draw_stack(fig, boxes, x, side, n_layers, text, layout)
        fig.add_annotation(
            x=x, y=-0.85 * ROW, showarrow=False, font={"size": 18}, text=f"<b>{html.escape(text.stack(stack))}</b>"
        )
        for i, box in enumerate(boxes):
            lines = [f"<b>{html.escape(text.name(box))}</b>", format_shape(box.shape)]
            if box.detail_shape is not None:
                lines.append(f"{html.escape(text.details[box.component])}: {format_shape(box.detail_shape)}")
            if box.pages:
                lines.append(html.escape(text.see) + " " + " · ".join(html.escape(text.pages[p]) for p in box.pages))
            hover_x.append(x), hover_y.append(i * ROW), hover_text.append("<br>".join(lines)), ids.append(box.id)
        if stack == "decoder":
            top = (len(boxes) - 1) * ROW
            arrow(fig, x, top + BOX_H / 2, x, top + 0.85 * ROW)
            fig.add_annotation(
                x=x,
                y=top + 0.95 * ROW,
                showarrow=False,
                yanchor="bottom",
                font={"size": 16 if layout.one_line else 15},
                text=html.escape(text.probabilities),
            )
    if len(stacks) > 1:
        _draw_memory(fig, stacks, text, layout)
    fig.add_scatter(
        x=hover_x,
        y=hover_y,
        mode="markers",
        customdata=ids,
        hovertext=hover_text,
        hoverinfo="text",
        marker={"size": 40 if not layout.one_line else max(10, int(BOX_H * layout.row_px)), "symbol": "square", "opacity": 0},
        showlegend=False,
    )
    rows = diagram_rows(stacks)
    fig.update_xaxes(visible=False, range=list(_x_range(layout, len(stacks))), fixedrange=True)
    fig.update_yaxes(visible=False, range=[Y_ROWS[0] * ROW, (rows + Y_ROWS[1]) * ROW], fixedrange=True)
    height = int(70 + ROW_PX * (rows + 2)) if layout.height_px is None else layout.height_px
    fig.update_layout(
        base_layout(
            height=height,
            dragmode=False,
            margin={"l": 0, "r": 0, "t": TOP_MARGIN_PX, "b": 0},
            hoverlabel={"font": {"size": 15}},
        )
    )
    return fig


def _draw_memory(fig: go.Figure, stacks: Mapping[str, list[Box]], text: ArchitectureText, layout: DiagramLayout) -> None:
    """The encoder's output (the "memory") feeding the decoder's cross-attention."""
    enc, dec = stacks["encoder"], stacks["decoder"]
    x_enc, x_dec = layout.column_x("encoder", 2), layout.column_x("decoder", 2)
    top = (len(enc) - 1) * ROW + BOX_H / 2
    turn, mid = top + 0.3 * ROW, (x_enc + x_dec) / 2
    cross = next(i for i, b in enumerate(dec) if b.component == "cross_attn") * ROW
    fig.add_shape(type="path", path=f"M {x_enc},{top} L {x_enc},{turn} L {mid},{turn} L {mid},{cross}", line=LINE)
    arrow(fig, mid, cross, x_dec - layout.box_w / 2, cross)
    fig.add_annotation(
        x=mid,
        y=turn,
        showarrow=False,
        yanchor="bottom",
        font={"size": 15 if layout.one_line else 14},
        text=html.escape(text.memory),
    )
