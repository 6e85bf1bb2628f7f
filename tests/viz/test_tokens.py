"""Token labels reach figures escaped, and repeated tokens keep their own positions."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from viz.heatmap import HeatmapText, head_figure
from viz.tokens import axis, escape_token, hover_labels

ROOT = Path(__file__).resolve().parents[2]


def _uniform(tq: int, tk: int) -> np.ndarray:
    return np.full((tq, tk), 1.0 / tk, dtype=np.float32)


def test_markup_is_escaped_in_ticktext_and_hover():
    tokens = ["<b>x</b>", "<a href='http://e.x'>y</a>"]
    fig = json.loads(head_figure(_uniform(2, 2), tokens, tokens).to_json())
    ticktext = fig["layout"]["xaxis"]["ticktext"]
    assert ticktext[0] == "&lt;b&gt;x&lt;/b&gt;"
    assert ticktext[1] == "&lt;a href=&#x27;http://e.x&#x27;&gt;y&lt;/a&gt;"
    assert fig["layout"]["yaxis"]["ticktext"] == ticktext
    hover_x = fig["data"][0]["x"]
    assert hover_x == ["0: &lt;b&gt;x&lt;/b&gt;", "1: &lt;a href=&#x27;http://e.x&#x27;&gt;y&lt;/a&gt;"]
    assert "<b>" not in json.dumps(fig["layout"]) and "<b>" not in json.dumps(fig["data"][0]["x"])


def test_repeated_tokens_stay_distinct_positions():
    tokens = list("hello")  # two "l"s
    fig = head_figure(_uniform(5, 5), tokens, tokens)
    xaxis = fig.layout.xaxis
    assert list(xaxis.tickvals) == [0, 1, 2, 3, 4]
    assert list(xaxis.ticktext) == ["h", "e", "l", "l", "o"]
    categories = list(fig.data[0].x)
    assert len(set(categories)) == 5, categories  # "2: l" and "3: l" are two columns, not one
    assert categories[2] != categories[3]


def test_whitespace_tokens_are_visible():
    assert escape_token(" ") == "␣"
    assert hover_labels(["a", " ", "a"]) == ["0: a", "1: ␣", "2: a"]


def test_long_inputs_label_every_kth_position():
    tokens = [f"t{i}" for i in range(200)]
    spec = axis(tokens, "Key", max_labels=64)
    assert len(spec["ticktext"]) <= 64
    assert spec["tickvals"][:2] == [0, 4] and spec["ticktext"][1] == "t4"


def test_translated_axis_titles_are_used():
    text = HeatmapText(title="编码器", x_title="键（被关注）", y_title="查询（发出注意力）", value="权重")
    fig = head_figure(_uniform(2, 3), ["a", "b"], ["x", "y", "z"], text)
    assert fig.layout.xaxis.title.text == "键（被关注）"
    assert fig.layout.yaxis.title.text == "查询（发出注意力）"
    assert "权重" in fig.data[0].hovertemplate


def test_heads_viz_modules_do_not_import_streamlit():
    modules = ["viz.heatmap", "viz.head_grid", "viz.head_summary", "viz.rollout", "viz.payload", "viz.png"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "assert 'streamlit' not in sys.modules\n"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_a_word_piece_is_shown_without_its_word_start_mark():
    from transformer.text.tokenizer import WORD_START as TOKENIZER_WORD_START
    from viz.tokens import WORD_START, visible_token

    assert WORD_START == TOKENIZER_WORD_START  # viz may not import transformer/: the one mark, spelled twice, kept equal
    assert [visible_token(t) for t in ("▁read", "able", "▁", "我")] == ["read", "able", "␣", "我"]
