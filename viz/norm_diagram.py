"""Where the LayerNorm sits in a residual sublayer: post-norm (the paper) beside pre-norm.

Drawn with plotly shapes rather than Graphviz: Streamlit's Graphviz element forces its own small
font size onto every label (measured: 9.6 px whatever the DOT says), unreadable on a projector.
Read bottom to top, like the paper's Figure 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from viz.figure_parts import arrow
from viz.style import base_layout

BOX_COLORS = {"sublayer": "#dbe9f6", "norm": "#fde2b8"}
ORDER = {"post": ("sublayer", "add", "norm"), "pre": ("norm", "sublayer", "add")}
HALF_W, HALF_H, RADIUS = 0.32, 0.28, 0.2  # box half-width/height and the (+) circle's radius, in data units
ARROW = {"size": 1.4, "width": 2}  # bolder than the architecture figure's: this diagram is drawn larger


@dataclass(frozen=True)
class NormDiagramText:
    """The translated words of the diagram (pages pass them in; the defaults are the English ones)."""

    x: str = "x"  # what enters,
    sublayer: str = "Sublayer"  # the boxes and the (+),
    norm: str = "LayerNorm"
    add: str = "+"
    out: str = "next"  # what leaves,
    post: str = "Post-norm (the paper)"  # and the two diagrams' titles
    pre: str = "Pre-norm"

    def title(self, position: str) -> str:
        """The title over a placement ("post" or "pre")."""
        return self.post if position == "post" else self.pre

    def part(self, part: str) -> str:
        """The name of a part of ORDER ("sublayer", "norm", "add")."""
        return {"sublayer": self.sublayer, "norm": self.norm, "add": self.add}[part]


def sublayer_diagram(text: NormDiagramText = NormDiagramText()) -> go.Figure:
    """Both placements side by side; the dashed line is the residual connection (x skips the sublayer)."""
    fig = go.Figure()
    for column, position in enumerate(("post", "pre")):
        cx = 1.6 * column  # centre of this diagram
        fig.add_annotation(x=cx, y=-0.45, text=text.x, showarrow=False, font={"size": 20})
        fig.add_annotation(x=cx, y=4.5, text=text.out, showarrow=False, font={"size": 18})
        fig.add_annotation(x=cx, y=5.15, text=f"<b>{text.title(position)}</b>", showarrow=False, font={"size": 18})
        previous_top = -0.2
        for level, part in enumerate(ORDER[position], start=1):
            y = 1.1 * level
            if part == "add":
                fig.add_shape(
                    type="circle",
                    x0=cx - RADIUS,
                    x1=cx + RADIUS,
                    y0=y - RADIUS,
                    y1=y + RADIUS,
                    fillcolor="#eeeeee",
                    line={"color": "#333", "width": 2},
                )
                add_y, half = y, RADIUS
            else:
                fig.add_shape(
                    type="rect",
                    x0=cx - HALF_W,
                    x1=cx + HALF_W,
                    y0=y - HALF_H,
                    y1=y + HALF_H,
                    fillcolor=BOX_COLORS[part],
                    line={"color": "#333", "width": 2},
                )
                half = HALF_H
            fig.add_annotation(x=cx, y=y, text=text.part(part), showarrow=False, font={"size": 20 if part == "add" else 17})
            arrow(fig, cx, previous_top, cx, y - half, **ARROW)
            previous_top = y + half
        arrow(fig, cx, previous_top, cx, 4.25, **ARROW)
        side = cx + HALF_W + 0.15  # the residual path: from x, up the right side, into the (+)
        fig.add_shape(
            type="path",
            path=f"M {cx + 0.08},-0.3 L {side},-0.3 L {side},{add_y}",
            line={"color": "#333", "width": 2, "dash": "dash"},
        )
        arrow(fig, side, add_y, cx + RADIUS, add_y, **ARROW)  # the last stretch, with its arrowhead, into the (+)
    fig.update_layout(**base_layout(height=430, showlegend=False, margin={"l": 10, "r": 10, "t": 10, "b": 10}))
    fig.update_xaxes(visible=False, range=[-0.8, 2.4])
    fig.update_yaxes(visible=False, range=[-0.8, 5.4])
    return fig
