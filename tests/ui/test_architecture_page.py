"""The architecture page through AppTest: Figure 1 with live shapes, links and parameter counts, both languages.

(As in test_step_page.py: AppTest forgets widgets on `switch_page`, and Chinese is switched on last.)
"""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import assert_no_exception, open_random_in_app
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
