"""The Masks page's view-models and figures: masks of a hand-written batch, exactly; masked-score display."""

import numpy as np
import torch

from hook_names import act_name
from transformer.config import TransformerConfig  # only to capture a real head for the display tests
from transformer.hooks import capture
from transformer.model import Transformer
from viz.mask_figures import MaskText, batch_heatmap, binary_heatmap
from viz.masked_scores import (
    MINUS_INF,
    masked_for_display,
    number_text,
    pattern_figure,
    score_steps,
    steps_figure,
)
from viz.masks import MaskBatch, key_padding_matrix, padded_tokens

SRC_REAL = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 0]], dtype=bool)  # source lengths 4, 2, 3


def _batch() -> MaskBatch:
    """A hand-written padded batch (the masks themselves are tested in tests/transformer/test_batch_masks.py)."""
    tgt_real = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], dtype=bool)
    causal = np.tril(np.ones((4, 4), dtype=bool))
    return MaskBatch(
        src_tokens=padded_tokens([["a", "b", "c", "<eos>"], ["a", "<eos>"], ["c", "b", "<eos>"]], "<pad>"),
        tgt_tokens=padded_tokens([["<bos>", "a"], ["<bos>", "a", "b", "c"], ["<bos>"]], "<pad>"),
        tgt_padding=tgt_real,
        causal=causal,
        decoder_self=tgt_real[:, None, :] & causal,
        src_padding=SRC_REAL,
        encoder_self=np.repeat(SRC_REAL[:, None, :], 4, axis=1),
        cross=np.repeat(SRC_REAL[:, None, :], 4, axis=1),
    )


def test_padded_tokens_lengths_and_the_most_padded_sentence():
    view = _batch()
    assert view.src_tokens[1] == ("a", "<eos>", "<pad>", "<pad>")
    assert view.lengths("src") == [4, 2, 3] and view.lengths("tgt") == [2, 4, 1]
    assert view.most_padded == 1 and view.has_source and view.size == 3
    decoder_only = MaskBatch((), view.tgt_tokens, view.tgt_padding, view.causal, view.decoder_self)
    assert not decoder_only.has_source and decoder_only.most_padded == 2
    assert key_padding_matrix(view.tgt_padding[0]).astype(int).tolist() == [[1, 1, 0, 0]] * 4


def _steps_from_model():
    torch.manual_seed(1)
    model = Transformer(
        TransformerConfig(architecture="decoder-only", tgt_vocab_size=7, n_layers=1, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    ).eval()
    names = [act_name("decoder", 0, h) for h in ("scores", "mask", "masked_scores", "pattern")]
    with torch.no_grad(), capture(model, names) as cache:
        model(None, torch.tensor([[1, 4, 5, 6, 4]]))
    return score_steps(cache.numpy(), "decoder", 0, 1)


def test_masked_scores_are_shown_as_blank_not_minus_3e38():
    steps = _steps_from_model()
    blocked = ~steps.allowed
    assert blocked.sum() == 10  # the strict upper triangle of 5 × 5
    assert np.isnan(steps.masked[blocked]).all()
    assert np.array_equal(steps.masked[steps.allowed], steps.scores[steps.allowed])
    assert (steps.pattern[blocked] == 0).all()
    assert np.allclose(steps.pattern.sum(-1), 1.0, atol=1e-6)
    display = masked_for_display(np.array([[1.5, -3.4e38]], dtype=np.float32), np.array([[True, False]]))
    assert display[0, 0] == 1.5 and np.isnan(display[0, 1])


def test_number_text_shows_exact_zero_as_0():
    text = number_text(np.array([[0.0, 0.25, 1.0, 1e-9, np.nan]]), 2)
    assert text.tolist() == [["0", ".25", "1", ".00", ""]]
    assert number_text(np.array([[-2.34, 0.0]]), 1).tolist() == [["-2.3", "0"]]


def _z(trace) -> np.ndarray:
    return np.asarray(trace.z, dtype=np.float64)


def test_steps_figure_reads_minus_infinity_then_exact_zero():
    steps = _steps_from_model()
    tokens = ["<bos>", "a", "b", "c", "a"]
    fig = steps_figure(steps, row_tokens=tokens, col_tokens=tokens)
    scores, masked, overlay, pattern = fig.data
    assert overlay.xaxis == "x2" and pattern.xaxis == "x3"
    assert np.abs(_z(scores)).max() < 1e3 and masked.zmin == scores.zmin  # one scale, no -3.4e38 in it
    blocked = ~steps.allowed
    assert np.isnan(_z(masked)[blocked]).all()
    assert (np.array(overlay.text, dtype=object)[blocked] == MINUS_INF).all()
    pattern_text = np.array(pattern.text, dtype=object)
    assert (pattern_text[blocked] == "0").all() and (_z(pattern)[blocked] == 0).all()
    assert list(pattern.y)[1::3] == ["1: a", "4: a"]  # unique "position: token" names: repeated "a" stays distinct
    single = pattern_figure(steps.pattern, row_tokens=tokens, col_tokens=tokens)
    assert (np.array(single.data[0].text, dtype=object)[blocked] == "0").all()


def test_binary_heatmap_cells_and_escaped_labels():
    allowed = np.array([[True, False], [True, True]])
    fig = binary_heatmap(
        allowed,
        row_tokens=["<b>x</b>", "a"],
        col_tokens=["<b>x</b>", "a"],
        text=MaskText(title="<i>t</i>"),
    )
    trace = fig.data[0]
    assert np.array_equal(np.asarray(trace.z), allowed.astype(np.uint8))
    assert trace.texttemplate == "%{z}"
    assert "<b>" not in "".join(fig.layout.xaxis.ticktext) and "&lt;b&gt;x&lt;/b&gt;" in fig.layout.xaxis.ticktext
    assert fig.layout.title.text == "&lt;i&gt;t&lt;/i&gt;"
    assert list(trace.colorbar.ticktext) == ["0 = blocked", "1 = may attend"]


def test_long_masks_drop_cell_text_but_keep_values():
    n = 120
    fig = binary_heatmap(
        np.tril(np.ones((n, n), bool)),
        row_tokens=["x"] * n,
        col_tokens=["x"] * n,
    )
    assert fig.data[0].texttemplate is None
    assert len(fig.to_json()) < 60_000  # uint8 z: about 1.3 bytes a cell, no per-cell strings


def test_batch_heatmap_greys_out_padding():
    view = _batch()
    fig = batch_heatmap(view.src_tokens, view.src_padding, MaskText(sentence="{n}"))
    trace = fig.data[0]
    assert np.asarray(trace.z).tolist() == view.src_padding.astype(int).tolist()
    assert trace.text[1][3] == "&lt;pad&gt;"
    assert list(fig.layout.yaxis.ticktext) == ["1", "2", "3"]


def test_decoder_rows_of_a_batch_are_named_by_what_they_write():
    view = _batch()
    assert view.query_labels(0) == view.tgt_tokens[0]  # no next tokens given: the input tokens, as before
    written = padded_tokens([["a", "<eos>"], ["a", "b", "c", "<eos>"], ["<eos>"]], "<pad>")
    named = MaskBatch(**{**view.__dict__, "tgt_next": written})
    axis = named.query_labels(1)
    assert axis.tokens == ("a", "b", "c", "<eos>") and axis.reads == ("<bos>", "a", "b", "c")
    fig = binary_heatmap(
        named.decoder_self[1],
        row_tokens=axis,
        col_tokens=named.tgt_tokens[1],
    )
    assert list(fig.data[0].y) == ["0: &lt;bos&gt; → a", "1: a → b", "2: b → c", "3: c → &lt;eos&gt;"]
