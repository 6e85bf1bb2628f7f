"""Colours and fonts that read on a classroom projector and for colour-blind viewers.

Attention weights use a sequential scale from white (0) to dark blue-purple (1): zeros, the
values masks produce, stay clearly blank; cividis/viridis-like ramps are distinguishable without
red–green contrast. Signed quantities (scores, LayerNorm means) use a diverging scale centred on 0.
"""

from __future__ import annotations

ATTENTION_SCALE = [  # white → light blue → indigo: 0 is blank, 1 is darkest
    [0.0, "#ffffff"],
    [0.15, "#dbe9f6"],
    [0.4, "#7fb2d9"],
    [0.7, "#3b5ba7"],
    [1.0, "#1d0f5e"],
]
DIVERGING_SCALE = "RdBu_r"  # negative blue, positive red, 0 white; distinguishable for red–green deficiency
MASK_COLORS = {"allowed": "#2b6cb0", "blocked": "#f2f2f2"}
ALIGNMENT_COLOR = "#D55E00"  # Okabe–Ito vermillion: gold-alignment outlines, apart from the white-to-indigo scale
MARK_COLOR = "#E69F00"  # Okabe–Ito orange: the outline of an important head's tile in the grid
QUALITATIVE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]  # Okabe–Ito

FONT_FAMILY = "Noto Sans, Noto Sans CJK SC, WenQuanYi Zen Hei, Microsoft YaHei, PingFang SC, sans-serif"
BASE_FONT_SIZE = 16  # readable from the back of a classroom
TICK_FONT_SIZE = 14


def base_layout(**overrides: object) -> dict:
    """Layout shared by every figure: large CJK-capable fonts, white background, tight margins."""
    layout = {
        "font": {"family": FONT_FAMILY, "size": BASE_FONT_SIZE},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "hoverlabel": {"font": {"size": BASE_FONT_SIZE, "family": FONT_FAMILY}},
    }
    layout.update(overrides)
    return layout


PLOTLY_CONFIG = {  # st.plotly_chart(config=...): the download button exports PNG at projector resolution
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToAdd": ["toImage"],
}
