"""The architecture page through AppTest: Figure 1 with live shapes, links and parameter counts, both languages.

(As in test_step_page.py: AppTest forgets widgets on `switch_page`, and Chinese is switched on last.)
"""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import app_test, assert_no_exception, open_random_in_app
from transformer.config import TransformerConfig
from transformer.storage.registry import random_bundle


def _open(architecture: str = "encoder-decoder", norm: str = "post", text: str = "hi there") -> AppTest:
    at = open_random_in_app("architecture", architecture=architecture, norm=norm, text=text)
    assert_no_exception(at)
    return at


def _diagram_text(at: AppTest) -> str:
    (chart,) = at.get("plotly_chart")
    return " ".join(a["text"] for a in json.loads(chart.proto.spec)["layout"]["annotations"])


@pytest.mark.parametrize(("architecture", "norm"), [("encoder-decoder", "post"), ("decoder-only", "pre")])
def test_diagram_has_the_models_boxes_and_live_shapes(architecture, norm):
    at = _open(architecture, norm)
    text = _diagram_text(at)
    if architecture == "encoder-decoder":
        assert "(1, 9)" in text and "(1, 9, 64)" in text  # the encoder reads "hi there" (8 characters) + <eos>
    else:  # the decoder reads <bos> + "hi there" + what it generated
        t = int(re.search(r"text</b><br><span[^>]*>\(1, (\d+)\)", text).group(1))
        assert t >= 9 and f"(1, {t}, 64)" in text
    assert ("Multi-head cross-attention" in text) == (architecture == "encoder-decoder")
    assert ("Final LayerNorm" in text) == (norm == "pre")
    assert ("Add &amp; Norm" in text) == (norm == "post")  # labels are escaped: "&" → "&amp;"
    assert "N = 2 ×" in text
    (latex,) = at.latex
    assert ("Sublayer}\\big(\\mathrm{LayerNorm}" in latex.value) == (norm == "pre")


def test_links_and_parameter_table():
    at = _open()
    links = {link.proto.page or "heads" for link in at.get("page_link")}  # the default page (heads) lives at "/"
    assert {"heads", "masks", "positional", "layernorm", "step_by_step"} <= links
    table = at.table[0].value
    counts = [int(c.replace(",", "")) for c in table.iloc[:, 1]]
    expected = random_bundle(TransformerConfig(n_layers=2, d_model=64, n_heads=4, d_ff=256, dropout=0.0)).model
    assert sum(counts) == expected.num_parameters()  # the sidebar's default random model
    assert "Cross-attention (all layers)" in list(table.iloc[:, 0])


def test_chinese_ui():
    at = _open()
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "模型结构总览"
    text = _diagram_text(at)
    assert "多头交叉注意力" in text and "编码器" in text and "(1, 9, 64)" in text
    assert "交叉注意力（所有层）" in list(at.table[0].value.iloc[:, 0])


def _main_order(node, out: list[str]) -> list[str]:
    """The main area's elements in page order (leaves only: a container's children in its place)."""
    kids = getattr(node, "children", None)
    if isinstance(kids, dict) and kids:
        for key in sorted(kids):
            _main_order(kids[key], out)
    else:
        out.append(node.type)
    return out


def test_on_a_projector_the_diagram_comes_under_the_title_fitted_to_the_first_screen():
    """Projector mode (issue 39 §7): the diagram right under the title, the text box under it, its height what the
    1280 × 720 screen has left, every box one line; off the projector the page is as before."""
    from ui.projector import SCREEN_PX

    at = app_test("architecture", timeout=300, params={"projector": "1"})
    at.run()
    at.selectbox(key="model").set_value("random").run()
    at.text_input(key="text").set_value("hi there").run()
    assert_no_exception(at)
    order = [e for e in _main_order(at.main, []) if e in ("title", "plotly_chart", "text_input")]
    assert order == ["title", "plotly_chart", "text_input"]
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    assert 500 < spec["layout"]["height"] <= SCREEN_PX - 100  # the screen under the title (100 px at 1280 × 720)
    boxes = [a["text"] for a in spec["layout"]["annotations"] if a.get("text", "").startswith("<b>") and a["y"] >= 0]
    assert boxes and all("<br>" not in b for b in boxes)
    at.session_state["projector"] = False
    at.run()
    order = [e for e in _main_order(at.main, []) if e in ("title", "plotly_chart", "text_input")]
    assert order == ["title", "text_input", "plotly_chart"]
    (chart,) = at.get("plotly_chart")
    assert json.loads(chart.proto.spec)["layout"]["height"] == 70 + 68 * (11 + 2)  # ROW_PX rows, 11 in the decoder
