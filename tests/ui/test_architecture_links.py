"""The architecture diagram's boxes open the page that explains them (issue 10 §5, issue 13): each attention
box opens the heads page on its own kind (cross-attention on cross, not encoder self-attention), the
feed-forward box the feed-forward page, the linear/softmax box the output page.

AppTest cannot click a plotly point, so the test sends the selection event the browser sends on a click
(the chart's widget state: the clicked box's customdata) and lets the page act on it.
"""

from __future__ import annotations

import json

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP, TIMEOUT, assert_no_exception, open_page
from ui.head_picker import KIND_KEY

MODEL = "translate-en-zh"

ZH_SLOW = pytest.param("zh", marks=pytest.mark.slow)  # the whole app per click: English in the fast subset


def _architecture(lang: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["lang"] = lang
    at.switch_page("views/architecture.py").run()
    at.selectbox(key="model").set_value(MODEL).run()
    assert_no_exception(at)
    return at


def _click(at: AppTest, box: str) -> AppTest:
    """Click diagram box `box` (its id, e.g. "decoder.cross_attn"), as the browser reports it."""
    (chart,) = at.get("plotly_chart")
    boxes = [c for trace in json.loads(chart.proto.spec)["data"] for c in trace.get("customdata") or []]
    assert box in boxes, boxes
    states = at._tree.get_widget_states()
    event = {"selection": {"points": [{"customdata": box}], "point_indices": [0], "box": [], "lasso": []}}
    states.widgets.append(WidgetState(id=chart.proto.id, string_value=json.dumps(event)))
    at._run(states)
    assert_no_exception(at)
    return at


def _title(page: str, lang: str) -> str:
    """The title page `page` shows when opened directly."""
    return open_page(page, model=MODEL, lang=lang).title[0].value


@pytest.mark.parametrize("lang", ["en", ZH_SLOW])
@pytest.mark.parametrize(
    ("box", "kind"), [("decoder.cross_attn", "cross"), ("encoder.self_attn", "encoder"), ("decoder.self_attn", "decoder")]
)
def test_an_attention_box_opens_the_heads_page_on_its_kind(box, kind, lang):
    at = _click(_architecture(lang), box)
    assert at.title[0].value == _title("heads", lang)
    assert at.session_state[KIND_KEY] == kind  # the kind the page's pickers and enlarged head show


@pytest.mark.parametrize("lang", ["en", ZH_SLOW])
@pytest.mark.parametrize(
    ("box", "page"),
    [("encoder.feed_forward", "feed_forward"), ("decoder.feed_forward", "feed_forward"), ("decoder.softmax", "output")],
)
def test_the_feed_forward_and_softmax_boxes_open_their_pages(box, page, lang):
    at = _click(_architecture(lang), box)
    assert at.title[0].value == _title(page, lang)
