"""Drawing the architecture (the paper's Figure 1) with plotly shapes, for the current model and input.

Plotly rather than SVG HTML: labels and shapes are drawn as plotly text (escaped here), so nothing
reaches the page as raw HTML, and the figure exports like every other. Boxes sit bottom to top as
data flows; the residual connections run beside each sublayer, the repeated layer is framed
"N ×", and in an encoder-decoder model the encoder's output feeds every cross-attention.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field

import plotly.graph_objects as go

from viz.architecture import Box, format_shape
from viz.figure_parts import arrow
from viz.style import base_layout

BOX_W, BOX_H, ROW = 1.7, 0.74, 1.0  # data units: one row per box
ROW_PX = 68  # a row's height on screen: a box of 50 px holds its 18 px name and 16 px shape inside its border
LABEL_PX, SHAPE_PX = 18, 16  # at the projector's tick size already: the labels fill their boxes, so they are not enlarged
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


def _draw_stack(fig: go.Figure, boxes: list[Box], x: float, side: int, n_layers: int, text: ArchitectureText) -> None:
    """Boxes, arrows between them, residual lines on `side` (−1 left, +1 right) and the N × frame."""
    for i, box in enumerate(boxes):
        y = i * ROW
        dash = "dot" if box.component == "tokens" else "solid"
        fig.add_shape(
            type="rect",
            x0=x - BOX_W / 2,
            x1=x + BOX_W / 2,
            y0=y - BOX_H / 2,
            y1=y + BOX_H / 2,
            fillcolor=COLORS[box.component],
            line={**LINE, "dash": dash},
            layer="below",
        )
        fig.add_annotation(
            x=x,
            y=y,
            showarrow=False,
            font={"size": LABEL_PX},
            text=f"<b>{html.escape(text.name(box))}</b><br><span style='font-size:{SHAPE_PX}px'>{format_shape(box.shape)}</span>",
        )
        if i + 1 < len(boxes):
            arrow(fig, x, y + BOX_H / 2, x, y + ROW - BOX_H / 2)
    in_layer = [i for i, b in enumerate(boxes) if b.in_layer]
    if not in_layer:
        return
    edge, lane = x + side * BOX_W / 2, x + side * (BOX_W / 2 + 0.28)
    for group in sorted({boxes[i].group for i in in_layer}):
        members = [i for i in in_layer if boxes[i].group == group]
        start, end = (members[0] - 0.5) * ROW, members[-1] * ROW  # branch below the sublayer → its Add box
        fig.add_shape(type="path", path=f"M {x},{start} L {lane},{start} L {lane},{end}", line=LINE)
        arrow(fig, lane, end, edge, end)
    lo, hi = (in_layer[0] - 0.62) * ROW, (in_layer[-1] + 0.45) * ROW
    outer = x + side * (BOX_W / 2 + 0.45)
    fig.add_shape(
        type="rect",
        x0=min(x - side * (BOX_W / 2 + 0.12), outer),
        x1=max(x - side * (BOX_W / 2 + 0.12), outer),
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


def architecture_figure(stacks: Mapping[str, list[Box]], text: ArchitectureText, n_layers: int) -> go.Figure:
    """The whole diagram; hovering a box shows its shapes and the pages that explain it."""
    fig = go.Figure()
    hover_x, hover_y, hover_text, ids = [], [], [], []
    for stack, boxes in stacks.items():
        x = COLUMN_X[stack] if len(stacks) > 1 else 0.0
        side = -1 if stack == "encoder" else 1
        _draw_stack(fig, boxes, x, side, n_layers, text)
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
                font={"size": 15},
                text=html.escape(text.probabilities),
            )
    if len(stacks) > 1:
        _draw_memory(fig, stacks, text)
    fig.add_scatter(
        x=hover_x,
        y=hover_y,
        mode="markers",
        customdata=ids,
        hovertext=hover_text,
        hoverinfo="text",
        marker={"size": 40, "symbol": "square", "opacity": 0},
        showlegend=False,
    )
    rows = max(len(b) for b in stacks.values())
    xs = [COLUMN_X[s] if len(stacks) > 1 else 0.0 for s in stacks]
    fig.update_xaxes(visible=False, range=[min(xs) - BOX_W / 2 - 1.0, max(xs) + BOX_W / 2 + 1.0], fixedrange=True)
    fig.update_yaxes(visible=False, range=[-1.3 * ROW, (rows + 0.5) * ROW], fixedrange=True)
    fig.update_layout(
        base_layout(
            height=int(70 + ROW_PX * (rows + 2)),
            dragmode=False,
            margin={"l": 0, "r": 0, "t": 10, "b": 0},
            hoverlabel={"font": {"size": 15}},
        )
    )
    return fig


def _draw_memory(fig: go.Figure, stacks: Mapping[str, list[Box]], text: ArchitectureText) -> None:
    """The encoder's output (the "memory") feeding the decoder's cross-attention."""
    enc, dec = stacks["encoder"], stacks["decoder"]
    x_enc, x_dec = COLUMN_X["encoder"], COLUMN_X["decoder"]
    top = (len(enc) - 1) * ROW + BOX_H / 2
    turn, mid = top + 0.3 * ROW, (x_enc + x_dec) / 2
    cross = next(i for i, b in enumerate(dec) if b.component == "cross_attn") * ROW
    fig.add_shape(type="path", path=f"M {x_enc},{top} L {x_enc},{turn} L {mid},{turn} L {mid},{cross}", line=LINE)
    arrow(fig, mid, cross, x_dec - BOX_W / 2, cross)
    fig.add_annotation(x=mid, y=turn, showarrow=False, yanchor="bottom", font={"size": 14}, text=html.escape(text.memory))
