"""Projector mode's first screen (issue 39 §7, §8): a title wider than its figure breaks instead of being clipped,
a page's main figure is made to end on the 1280 × 720 screen, and the collapsed sidebar's `»` says what it holds."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

import ui.projector as projector
from ui.i18n import catalog
from ui.projector import SCREEN_PX, broken_title, enlarge_fonts, fit_first_screen, sidebar_hint_rule, title_width_px


@pytest.mark.parametrize(
    "title",
    ["交叉注意力（解码器 → 编码器），第 3 层，第 3 个头", "Cross-attention (decoder → encoder), layer 3, head 3"],
)
def test_a_title_wider_than_its_figure_breaks_where_each_line_fits(title):
    broken = broken_title(title, 22, 440)
    assert "<br>" in broken
    lines = broken.split("<br>")
    assert all(title_width_px(line, 22) <= 440 for line in lines[:1])
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")  # nothing lost: the last character included
    assert broken_title(title, 22, 2000) == title  # one that fits is left alone


def test_enlarged_figure_makes_room_for_the_broken_title():
    fig = go.Figure(layout={"title": {"text": "交叉注意力（解码器 → 编码器），第 3 层，第 3 个头"}, "width": 480, "height": 500})
    big = enlarge_fonts(fig)
    assert "<br>" in big.layout.title.text and big.layout.height > 500


def test_the_main_figure_ends_on_the_first_screen_in_projector_mode(monkeypatch):
    fig = go.Figure(layout={"height": 620})
    monkeypatch.setattr(projector, "projector_on", lambda: False)
    assert fit_first_screen(fig, 300).layout.height == 620  # only on a projector
    monkeypatch.setattr(projector, "projector_on", lambda: True)
    assert fit_first_screen(fig, 300).layout.height == SCREEN_PX - 300
    assert fit_first_screen(go.Figure(layout={"height": 200}), 300).layout.height == 200  # a short one keeps its size


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sidebar_hint_names_the_model_and_the_other_language(lang):
    hint = catalog(lang)["projector.sidebar_hint"]
    assert ("中文" if lang == "en" else "English") in hint
    rule = sidebar_hint_rule(hint)
    assert f'content: "{hint}"' in rule and "stExpandSidebarButton" in rule
    assert "</style>" not in sidebar_hint_rule('"}</style><script>')  # a catalog string cannot end the stylesheet
