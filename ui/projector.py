"""Projector mode: type and chart labels a back row can read on a 1280 × 720 projector.

One switch for every page: a sidebar toggle, also `?projector=1` in the link. `apply_projector_mode`
adds one fixed stylesheet, with the rules every page carries (`ui.page_style`; no user text ever goes
into it); `projector_figure` enlarges a figure's fonts in one place (`ui.charts.show_figure` calls it),
on a copy, because figures may be cached and shared between sessions.
"""

from __future__ import annotations

import unicodedata

import plotly.graph_objects as go
import streamlit as st

from ui.i18n import t
from ui.page_style import EVERY_PAGE
from ui.url_choice import switch_requested, url_switch

PROJECTOR_KEY = "projector"  # session-state key of the toggle, and the query parameter
BODY_PX = 22
TICK_PX = 18
TITLE_PX = 22
CAPTION_COLOR = "#31333f"  # on white: 12.6:1 (Streamlit's grey captions are about 4:1)
SCREEN_PX = 720  # a projector's first screen: 1280 × 720
TITLE_BREAKS = ("，", "、", ", ", " · ", " ")  # where a title that does not fit its figure may break, best first

STYLESHEET = f"""<style>
.stApp [data-testid="stMarkdownContainer"] p, .stApp [data-testid="stMarkdownContainer"] li,
.stApp [data-testid="stMarkdownContainer"] td, .stApp [data-testid="stMarkdownContainer"] th,
.stApp [data-testid="stWidgetLabel"] p, .stApp button p, .stApp [data-testid="stExpander"] summary p,
.stApp [data-testid="stAlertContentInfo"] p, .stApp [data-testid="stAlertContentSuccess"] p,
.stApp [data-testid="stAlertContentWarning"] p, .stApp [data-testid="stAlertContentError"] p,
.stApp input, .stApp textarea, .stApp [data-testid="stPageLink"] p {{
  font-size: {BODY_PX}px !important; line-height: 1.35 !important;
}}
.stApp [data-testid="stCaptionContainer"], .stApp [data-testid="stCaptionContainer"] p {{
  font-size: {BODY_PX}px !important; color: {CAPTION_COLOR} !important; opacity: 1 !important;
}}
.stApp [data-testid="stMetricValue"], .stApp [data-testid="stMetricValue"] p {{
  font-size: 44px !important; line-height: 1.2 !important;
}}
.stApp h1 {{ font-size: 30px !important; padding: 0 !important; line-height: 1.2 !important; }}
.stApp h2 {{ font-size: 30px !important; }}
.stApp h3 {{ font-size: 26px !important; }}
.stApp .stMainBlockContainer, .stApp .block-container {{ padding-top: 4rem !important; padding-bottom: 1rem !important; }}
.stApp [data-testid="stMarkdownContainer"] code, .stApp [data-testid="stCode"] code,
.stApp [data-testid="stText"], .stApp [data-testid="stDataFrame"] {{
  font-size: {BODY_PX}px !important;
}}
{EVERY_PAGE}
</style>"""


# Every page, projector or not: Streamlit's 6rem above the title and 1.25rem above an h1 cost the first
# 1280 × 720 screen half a chart. 4rem still clears the header bar (its toolbar and the sidebar button).
FIRST_SCREEN_STYLESHEET = f"""<style>
.stApp .stMainBlockContainer, .stApp .block-container {{ padding-top: 4rem !important; }}
.stApp h1 {{ padding-top: 0.25rem !important; padding-bottom: 0.5rem !important; }}
{EVERY_PAGE}
</style>"""


def projector_requested() -> bool:
    """Whether projector mode is on (before the toggle renders: app.py collapses the sidebar with it)."""
    return switch_requested(PROJECTOR_KEY)


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def projector_toggle() -> None:
    """The sidebar toggle, seeded from `?projector=1`, and kept in the URL so a copied link keeps it."""
    url_switch(PROJECTOR_KEY, t("lesson.projector"), t("lesson.projector_help"))


def sidebar_hint_rule(hint: str) -> str:
    """A CSS rule that writes `hint` beside the collapsed sidebar's `»` button, inside the button (a click on the
    words opens the sidebar too), in the header bar's empty space: no line of the page is spent on it.

    Projector mode starts with the sidebar collapsed, and the model picker and the language switch live there:
    a class saw only `»` and did not find them (issue 39 §8). `hint` is a catalog string, never user text; it is
    escaped for a CSS string all the same."""
    quoted = hint.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("<", "\\3c ")
    return (
        '.stApp [data-testid="stExpandSidebarButton"] { overflow: visible !important; position: relative !important; }\n'
        '.stApp [data-testid="stExpandSidebarButton"]::after {'
        f' content: "{quoted}"; position: absolute; left: calc(100% + 8px); top: 50%; transform: translateY(-50%);'
        f" white-space: nowrap; font-size: {TICK_PX}px; color: {CAPTION_COLOR}; pointer-events: auto; }}"
    )


def apply_projector_mode() -> None:
    """Add the first-screen stylesheet, and the projector stylesheet when the mode is on (fixed strings and the
    catalog's sidebar hint: no user text)."""
    if projector_on():
        st.html(STYLESHEET.replace("</style>", sidebar_hint_rule(t("projector.sidebar_hint")) + "\n</style>"))
    else:
        st.html(FIRST_SCREEN_STYLESHEET)


def _bigger(font: object, size: int) -> dict:
    current = getattr(font, "size", None) if font is not None else None
    return {"size": max(size, int(current or 0))}


def projector_figure(fig: go.Figure) -> go.Figure:
    """`fig` unchanged when projector mode is off; else a copy with tick labels ≥ 18 px and titles ≥ 22 px."""
    return enlarge_fonts(fig) if projector_on() else fig


def enlarge_fonts(fig: go.Figure) -> go.Figure:
    """A copy of `fig` with every tick label ≥ TICK_PX, every title ≥ TITLE_PX, and margins that grow to fit."""
    fig = go.Figure(fig)
    layout = fig.layout
    fig.update_layout(font=_bigger(layout.font, TICK_PX), legend_font=_bigger(layout.legend.font, TICK_PX))
    if layout.title.text:
        fig.update_layout(title_font=_bigger(layout.title.font, TITLE_PX))
        _wrap_title(fig)
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        axis.update(tickfont=_bigger(axis.tickfont, TICK_PX), title_font=_bigger(axis.title.font, TICK_PX), automargin=True)
    for note in layout.annotations:  # subplot titles (labels placed in data coordinates keep their size: they fill boxes)
        if note.xref is not None and note.yref == "paper" and str(note.xref).endswith("paper"):
            note.update(font=_bigger(note.font, TITLE_PX))
    for trace in fig.data:
        bar = getattr(trace, "colorbar", None)
        if bar is not None:
            bar.update(tickfont=_bigger(bar.tickfont, TICK_PX), title_font=_bigger(bar.title.font, TICK_PX))
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and textfont.size:
            trace.update(textfont=_bigger(textfont, TICK_PX))
    for coloraxis in fig.select_coloraxes():
        coloraxis.colorbar.update(tickfont=_bigger(coloraxis.colorbar.tickfont, TICK_PX))
    return fig


def title_width_px(text: str, font_px: float) -> float:
    """Estimated width of a title: wide characters (CJK) one em, others half an em (the title font's Latin letters
    average about 0.45 em; `viz.tokens.text_width_px` reserves 0.62 em, generous for tick labels, which would break
    English titles that fit)."""
    return sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.5 for ch in text) * font_px


def broken_title(title: str, font_px: float, width_px: float) -> str:
    """`title` with a line break (`<br>`) at the last break point (`TITLE_BREAKS`) whose first line fits
    `width_px` at `font_px`; unchanged when it fits, or when no break point helps.

    A figure drawn at its own width (`width="content"`) clips a title wider than itself: in projector mode the
    Chinese heads page lost its title's last character ("第 3 个头" read "第 3 个乂", issue 39 §7)."""
    if "<br>" in title or title_width_px(title, font_px) <= width_px:
        return title
    for mark in TITLE_BREAKS:
        cuts = [i + len(mark) for i in range(len(title)) if title.startswith(mark, i)]
        fitting = [i for i in cuts if 0 < i < len(title) and title_width_px(title[:i], font_px) <= width_px]
        if fitting:
            cut = fitting[-1]
            return title[:cut].rstrip() + "<br>" + title[cut:].lstrip()
    return title


def _wrap_title(fig: go.Figure) -> None:
    """Break a title wider than its figure onto two lines, with room for the second (margin and height)."""
    layout = fig.layout
    width, size = layout.width, layout.title.font.size or TITLE_PX
    if not width:
        return  # a figure that fills its column: the browser sets its width, unknown here
    room = width - (layout.title.x or 0) * width - 8
    title = broken_title(str(layout.title.text), size, room)
    if title == layout.title.text:
        return
    line = round(size * 1.25)
    margin_top = (layout.margin.t if layout.margin.t is not None else 80) + line
    height = (layout.height or 450) + line
    fig.update_layout(title_text=title, margin_t=margin_top, height=height)
    if layout.title.yref == "container" and layout.title.y is not None:  # plotly grows a multi-line title upwards
        fig.update_layout(title_y=max(0.0, layout.title.y - line / height))


def fit_first_screen(fig: go.Figure, top_px: int) -> go.Figure:
    """In projector mode, a copy of `fig` no taller than what is left of the first 1280 × 720 screen below
    `top_px` (the page's measured top of this figure): the plot area gives way, while the margins that hold the
    axis labels and the title keep their size, so the whole figure with its labels is on the first screen
    (issue 39 §7: the heads page's source labels sat at ~844 px). Unchanged when projector mode is off."""
    room = SCREEN_PX - top_px
    if not projector_on() or fig.layout.height is None or fig.layout.height <= room:
        return fig
    return go.Figure(fig).update_layout(height=room)
