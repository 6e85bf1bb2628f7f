"""Hovering a byte-level piece shows its raw bytes (issue 36 §3): the heads page's matrix (query and key tokens) and
the output page's distribution, on tiny random GPT-2 and Qwen2 folders whose Chinese text splits a character across
pieces; nothing extra for a model whose pieces are text."""

import numpy as np
import pytest

from runs.heads import axes_of
from runs.output import SamplingSettings, output_steps
from runs.qk_map import qk_map
from runs.text_run import attention_names, run_text
from runs.why_page import pair_view
from transformer.hf.tokenizer import piece_bytes
from transformer.probes.lens import logit_lens
from transformer.storage.registry import DEFAULT_MODEL, load_model
from viz.atlas_figures import MapText, MultipleText, qk_figure, thumbnail
from viz.heatmap import HeatmapText, head_figure
from viz.output_distribution import DistributionText, distribution_figure
from viz.tokens import TokenAxis
from viz.why_figures import LensText, PatchText, lens_figure, residual_figure

TEXT = "你好 猫"  # 你好: not in the tiny tokenizers' merges, so 你 is spread over three one-byte pieces
LINES = {"en": "bytes: {hex}", "zh": "字节：{hex}"}


def _split_pieces(bundle, ids):
    """(position, label, hex) of each piece of `ids` holding part of a character, the hex read from the folder's own
    tokenizer (its piece string mapped back to bytes), never from the app's labels."""
    tokenizer = bundle.target_tokenizer
    out = []
    for position, (our_id, label) in enumerate(zip(ids, tokenizer.symbols(ids), strict=True)):
        their_id = tokenizer.map.theirs(our_id)
        raw = None if their_id is None else piece_bytes(tokenizer.hf.convert_ids_to_tokens(their_id))
        if raw and "⁄" in label:
            out.append((position, label, " ".join(f"{b:02x}" for b in raw)))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_the_head_hover_names_a_split_piece_and_its_bytes(pretrained_dir, family, lang):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    trace = run_text(bundle, TEXT, attention_names(bundle))
    split = _split_pieces(bundle, list(trace.tgt_ids))
    you = [piece for piece in split if piece[1].startswith("你")]
    assert len(you) == 3, split  # 你 in three pieces, each one byte of its UTF-8
    assert bytes.fromhex("".join(h.replace(" ", "") for _, _, h in you)) == "你".encode()
    queries, keys = axes_of(trace, "decoder")
    fig = head_figure(trace.pattern("decoder", 0)[0], queries, keys, HeatmapText(bytes=LINES[lang]))
    heatmap = fig.data[0]
    word = LINES[lang].split("{")[0]
    for position, label, raw in split:
        assert heatmap.x[position] == f"{position}: {label}<br>{word}{raw}", heatmap.x[position]  # a key column
        assert label in fig.layout.xaxis.ticktext[position]  # the label stays the readable part, "你 ¹⁄₃"
        row = heatmap.y[position - 1]  # the query row before it writes that piece: "reads → writes" bytes
        assert word in row and row.endswith(f" → {raw}"), row
    assert word not in heatmap.x[0]  # <bos>: a special has no bytes


@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_the_distribution_hover_gives_each_alternatives_bytes(pretrained_dir, family):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    run = output_steps(bundle, TEXT, SamplingSettings(), steps=0, k=20)
    dist = run.distributions[-1]
    tokenizer = bundle.target_tokenizer
    expected = [
        " ".join(f"{b:02x}" for b in piece_bytes(tokenizer.hf.convert_ids_to_tokens(tokenizer.map.theirs(i))) or b"")
        if tokenizer.map.theirs(i) is not None
        else ""
        for i in dist.top_ids
    ]
    assert list(dist.top_hex) == expected
    fig = distribution_figure(dist.top_tokens, dist.top_probs, None, DistributionText(bytes=LINES["zh"]), dist.top_hex)
    for label, raw in zip(fig.data[0].customdata, expected, strict=True):
        assert (f"<br>字节：{raw}" in label) == bool(raw), label
    # alternatives are labelled alone: one's bytes never complete another's character
    assert list(dist.top_tokens) == [tokenizer.symbols([i])[0] for i in dist.top_ids]


def test_a_model_whose_pieces_are_text_has_no_bytes_line():
    bundle = load_model(DEFAULT_MODEL)
    trace = run_text(bundle, "we are happy today", attention_names(bundle))  # it writes Chinese: characters, not bytes
    assert not any(trace.src_hex + trace.tgt_hex + trace.next_hex)
    for kind in trace.kinds():
        queries, keys = axes_of(trace, kind)
        fig = head_figure(trace.pattern(kind, 0)[0], queries, keys, HeatmapText(bytes=LINES["en"]))
        assert not any("bytes" in name for name in [*fig.data[0].x, *fig.data[0].y])


def test_the_atlas_thumbnail_hover_gives_the_query_and_key_bytes(pretrained_dir):
    bundle = load_model(pretrained_dir / "tiny-qwen2")
    trace = run_text(bundle, TEXT, attention_names(bundle))
    queries = TokenAxis(trace.query_tokens("decoder"), hex=trace.query_hex("decoder"))
    keys = TokenAxis(trace.key_tokens("decoder"), hex=trace.key_hex("decoder"))
    fig = thumbnail(trace.pattern("decoder", 0)[0], queries, keys, MultipleText("weight", LINES["zh"]))
    cells = fig.data[0].customdata
    split = _split_pieces(bundle, list(trace.tgt_ids))
    for position, label, raw in split:
        q, key, line = cells[position][0]  # row: this piece; column: <bos>, a special without bytes
        assert label in q and key == "&lt;|endoftext|&gt;" and line == f"<br>字节：{raw} → –", (q, line)
    assert cells[0][0][2] == ""  # <bos> → <bos>: nothing to add
    assert "%{customdata[2]}" in fig.data[0].hovertemplate


def test_the_why_pages_residual_hover_gives_each_positions_bytes(pretrained_dir):
    bundle = load_model(pretrained_dir / "tiny-qwen2")
    pair = pair_view(bundle, TEXT, "您好 猫")  # 您 and 你: three one-byte pieces each, so the two runs line up
    split = _split_pieces(bundle, bundle.target_tokenizer.ids(bundle.target_tokenizer.tokenize(TEXT)))
    rows = [str(i) for i in range(pair.residual.shape[0])]
    words = PatchText("t", bytes=LINES["zh"])
    fig = residual_figure(pair.residual, rows, pair.stream_tokens, None, words, pair.stream_hex)
    column = fig.data[0].customdata[0]  # the first row's cells, one per stream position
    for position, label, raw in split:  # the stream reads <bos> first: text piece i sits at position i + 1
        assert pair.stream_tokens[position + 1] == label and column[position + 1].endswith(f"<br>字节：{raw}"), column
    assert "字节" not in column[0]  # <bos>


def test_the_lens_labels_each_alternative_alone(pretrained_dir):
    bundle = load_model(pretrained_dir / "tiny-qwen2")
    lens = logit_lens(bundle, TEXT, k=20)
    for read in lens.reads:
        labels = [label for label, _ in read.top]
        assert all("⁄" not in label for label in labels), labels  # one alternative never completes another's character
        assert len(read.top_hex) == len(read.top) and any(read.top_hex)
        for label, raw in zip(labels, read.top_hex, strict=True):
            if raw and "▯" not in label:  # a whole piece: its bytes are its label's text
                assert bytes.fromhex(raw.replace(" ", "")).decode() == label, (label, raw)
    read = lens.reads[-1]
    fig = lens_figure(["a"], np.array([0.5]), [read.top[0][0]], LensText("t", "y", "最可能", LINES["zh"]), read.top_hex[:1])
    hover = fig.data[0]
    assert "最可能: %{text}%{customdata[1]}" in hover.hovertemplate
    raw = read.top_hex[0]
    assert hover.customdata[0][1] == (f"<br>字节：{raw}" if raw else "")


def test_the_atlas_map_of_queries_and_keys_hovers_each_points_bytes(pretrained_dir):
    bundle = load_model(pretrained_dir / "tiny-qwen2")
    qk = qk_map(bundle, [TEXT, "猫"], "decoder", 0, 0, user_text=None, generate=False)
    words = MapText("q", "k", "mine", "x", "y", "sentence", LINES["zh"])
    fig = qk_figure(qk.xy, qk.is_query, qk.tokens, qk.sentence, qk.user, qk.texts, words, raw=qk.hex)
    split = _split_pieces(bundle, list(run_text(bundle, TEXT, attention_names(bundle)).tgt_ids))
    queries = fig.data[0]  # the queries' points, sentence after sentence: TEXT's first
    for position, label, raw in split:
        sentence, token, _, line = queries.customdata[position]
        assert sentence == 0 and label in token and line == f"<br>字节：{raw}", queries.customdata[position]
    assert queries.customdata[0][3] == ""  # <bos>
    assert "%{customdata[3]}" in queries.hovertemplate
