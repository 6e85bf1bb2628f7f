"""One numbering of layers and heads on every page: the first layer is layer 1 (第 1 层), the first head head 1
(第 1 个头), in prose, labels, pickers and figures, in both languages (`hook_names.ordinal`); hook names keep
their 0-based index. Each page is run on the default model and everything it shows is searched for a
layer or head numbered 0."""

from __future__ import annotations

import json
import re

import pytest

from hook_names import from_ordinal, ordinal
from tests.ui.conftest import open_page

# every page that names a layer or a head (detectors and importance are sections of the heads page)
PAGES = ("heads", "step_by_step", "masks", "layernorm", "feed_forward", "training", "lesson")
# "layer 0", "Head 0", "L0 H1", "第 0 层", "第 0 个头", and a figure's hover "Layer %{y}" over a 0 tick
ZERO = re.compile(r"(?i)\b(layer|head)s?\s+0\b|\bL0\s*H\d|\bL\d+\s*H0\b|第\s*0\s*(层|个头)|(层|头)\s*0\b")
TEXT_ELEMENTS = ("title", "header", "subheader", "markdown", "caption", "info", "success", "warning", "error", "toast")
PICKERS = ("selectbox", "select_slider", "radio", "segmented_control")


def shown_text(at) -> str:
    """Everything the page shows as text: its text elements, every picker's option labels, every figure."""
    parts = [str(el.value) for kind in TEXT_ELEMENTS for el in at.get(kind)]
    for kind in PICKERS:
        for picker in at.get(kind):
            parts.append(f"{picker.label}: " + " | ".join(str(o) for o in getattr(picker, "options", [])))
    parts += [chart.proto.spec for chart in at.get("plotly_chart")]
    return "\n".join(parts)


def figure_ticks(at) -> list[list[str]]:
    """The tick values of every figure axis titled as a layer or head (Layer, Head, 层, 头)."""
    ticks = []
    for chart in at.get("plotly_chart"):
        layout = json.loads(chart.proto.spec).get("layout", {})
        for name, axis in layout.items():
            title = str((axis.get("title") or {}).get("text", "")) if name[1:5] == "axis" and isinstance(axis, dict) else ""
            if re.fullmatch(r"(?i)\s*(layer|head|层|头)\s*", title):
                ticks.append([str(v) for v in axis.get("tickvals", [])])
    return ticks


def test_ordinal_counts_from_one():
    assert [ordinal(i) for i in range(3)] == [1, 2, 3]
    assert all(from_ordinal(ordinal(i)) == i for i in range(64))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_no_page_numbers_a_layer_or_head_from_zero(page, lang):
    at = open_page(page, lang=lang)
    text = shown_text(at)
    found = sorted({m.group(0) for m in ZERO.finditer(text)})
    assert not found, (page, lang, found)
    for ticks in figure_ticks(at):
        assert "0" not in ticks, (page, lang, ticks)
    for key in ("layer", "head", "ffn_layer"):
        pickers = [p for p in at.get("selectbox") if p.key == key]
        if pickers:
            assert pickers[0].options[0] == "1", (page, key, pickers[0].options)  # the first layer is layer 1


def test_layernorm_and_heads_pages_name_the_same_layer_alike():
    """The same layer reads the same on two pages that used to disagree (LayerNorm counted from 1, heads from 0)."""
    heads = shown_text(open_page("heads", lang="zh"))
    layernorm = shown_text(open_page("layernorm", lang="zh"))
    assert "第 1 层" in heads + layernorm and "第 2 层" in layernorm
