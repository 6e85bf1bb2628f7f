"""The LayerNorm views on real runs of small seeded models: where the norms are, what they do to each
token, how post- and pre-norm residual streams differ, and the BatchNorm contrast."""

from itertools import pairwise

import numpy as np
import pytest
import torch

from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.model import Transformer
from viz.batchnorm_contrast import Contrast, ContrastText, PaddedBatch, batch_mean_figure, batch_stats, sentence_one_figure
from viz.layernorm import StackStats, capture_names, norm_sites, remove_affine, stacks, token_stats
from viz.layernorm_figures import residual_figure, stats_overview_figure
from viz.norm_diagram import NormDiagramText, sublayer_diagram

PAD, BOS, EOS = 0, 1, 2


def _model(**overrides) -> Transformer:
    torch.manual_seed(0)
    settings = {
        "src_vocab_size": 30,
        "tgt_vocab_size": 30,
        "d_model": 32,
        "n_heads": 4,
        "d_ff": 64,
        "n_layers": 2,
        "dropout": 0.0,
        "max_len": 40,
    }
    config = TransformerConfig(**{**settings, **overrides})
    return Transformer(config).eval()


def _run(model: Transformer, rows: list[list[int]], names) -> dict[str, np.ndarray]:
    width = max(map(len, rows))
    ids = torch.tensor([r + [PAD] * (width - len(r)) for r in rows])  # (B, T)
    with torch.no_grad(), capture(model, names) as cache:
        if model.config.is_encoder_decoder:
            model(ids, torch.tensor([[BOS, 5, 6]] * len(rows)))
        else:
            model(None, ids)
    return cache.numpy()


def test_norm_sites_follow_the_layers():
    kinds = lambda sites: [(s.stack, s.layer, s.kind) for s in sites]  # noqa: E731
    post = _model()
    assert kinds(norm_sites(post.hook_names)) == [
        ("encoder", 0, "self_attn"),
        ("encoder", 0, "feed_forward"),
        ("encoder", 1, "self_attn"),
        ("encoder", 1, "feed_forward"),
        ("decoder", 0, "self_attn"),
        ("decoder", 0, "cross_attn"),
        ("decoder", 0, "feed_forward"),
        ("decoder", 1, "self_attn"),
        ("decoder", 1, "cross_attn"),
        ("decoder", 1, "feed_forward"),
    ]
    pre = _model(norm_position="pre")
    assert kinds(norm_sites(pre.hook_names, "encoder"))[-1] == ("encoder", None, "final")
    decoder_only = _model(architecture="decoder-only")
    assert stacks(decoder_only.hook_names) == ["decoder"]
    assert [s.kind for s in norm_sites(decoder_only.hook_names)] == ["self_attn", "feed_forward"] * 2
    names = capture_names(post.hook_names, "encoder")
    assert set(names) <= set(post.hook_names) and "src_pos.hook_out" in names
    assert not any(n.startswith("decoder") for n in names)


@pytest.mark.parametrize("norm_position", ["post", "pre"])
def test_layernorm_output_has_mean_0_std_1_before_gain_and_bias(norm_position):
    model = _model(norm_position=norm_position)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():  # a trained model's gain and bias are not 1 and 0
        for name, p in model.named_parameters():
            if name.endswith("norm.gain"):
                p.copy_(1 + 0.5 * torch.rand(p.shape, generator=generator))
            elif name.endswith("norm.bias"):
                p.copy_(0.5 + torch.randn(p.shape, generator=generator))
    arrays = _run(model, [[4, 5, 6, 7, EOS]], capture_names(model.hook_names))
    params = dict(model.named_parameters())
    for site in norm_sites(model.hook_names):
        x_mean, x_std = token_stats(arrays[site.hook_in][0])
        assert np.abs(x_mean).max() > 1e-3 or np.abs(x_std - 1).max() > 1e-2  # the input is not normalized already
        y = arrays[site.hook_out][0]
        assert np.abs(token_stats(y)[0]).max() > 0.05  # the bias moved the output's mean away from 0...
        z = remove_affine(y, params[site.gain].detach().numpy(), params[site.bias].detach().numpy())
        mean, std = token_stats(z)  # ...and undoing g and b gives mean 0, std 1 for every token
        assert np.abs(mean).max() < 1e-4 and np.abs(std - 1).max() < 1e-3


def test_residual_stream_stays_at_sqrt_d_in_post_norm_and_grows_in_pre_norm():
    rows = [[4, 5, 6, 7, 8, 9, EOS]]
    post, pre = _model(n_layers=6), _model(n_layers=6, norm_position="pre")
    s_post = StackStats.compute(_run(post, rows, capture_names(post.hook_names)), post.hook_names, "encoder")
    s_pre = StackStats.compute(_run(pre, rows, capture_names(pre.hook_names)), pre.hook_names, "encoder")
    assert s_post.stream_norm.shape == (1 + 12, 7) and s_pre.stream_norm.shape == (1 + 12 + 1, 7)
    assert np.allclose(s_post.stream_norm[1:], np.sqrt(32), rtol=1e-3)  # gain 1, bias 0: norm √d after every norm
    assert np.allclose(s_post.out_std, 1, atol=1e-3) and np.allclose(s_post.out_mean, 0, atol=1e-5)
    before_final = s_pre.stream_norm[-2].mean()
    assert before_final > 1.5 * s_pre.stream_norm[1].mean() and before_final > 1.5 * np.sqrt(32)
    assert np.allclose(s_pre.stream_norm[-1], np.sqrt(32), rtol=1e-3)  # the final LayerNorm


def _batch(model: Transformer, rows: list[list[int]], name: str) -> PaddedBatch:
    values = _run(model, rows, [name])[name]
    return PaddedBatch(values, np.array([len(r) for r in rows]), tuple(tuple(map(str, r)) for r in rows))


ROWS = [[4, 5, 6, 7, 8, 9, 10, EOS], [11, 12, EOS], [13, 4, 14, 15, 16, 17, 18, 19, 20, 21, EOS]]


@pytest.mark.parametrize("name", ["src_pos.hook_out", "encoder.layers.1.sublayer.0.norm.hook_in"])
def test_batch_statistics_move_when_a_sentence_joins_and_layernorm_statistics_do_not(name):
    model = _model()
    c = Contrast.compute(_batch(model, ROWS, name))
    assert c.batch_mean_change > 0.01 and c.batch_mean_change_pad > 0.01
    assert c.bn_output_change > 0.01  # sentence 1 is normalized differently by BatchNorm...
    assert c.ln_stats_change < 1e-6 and c.ln_output_change < 1e-6  # ...and identically by LayerNorm
    assert not np.allclose(c.mean_small, c.mean_small_pad)  # padding changes the batch statistics too


def test_a_smaller_batch_is_the_same_as_the_first_rows_of_the_larger_one():
    """`PaddedBatch.first` is exact: the model keeps sentences independent, padding positions included."""
    model = _model()
    name = "encoder.layers.1.sublayer.1.norm.hook_in"
    small_run = _batch(model, ROWS[:2], name)
    sliced = _batch(model, ROWS, name).first(2)
    assert sliced.values.shape == small_run.values.shape
    assert np.allclose(sliced.values, small_run.values, atol=1e-5)
    assert np.allclose(batch_stats(sliced, True)[0], batch_stats(small_run, True)[0], atol=1e-5)


def test_contrast_figures_show_both_batches():
    c = Contrast.compute(_batch(_model(), ROWS, "src_pos.hook_out"))
    text = ContrastText(small="s{n}", large="l{n}", with_padding="{batch}p")
    fig = batch_mean_figure(c, 10, text)
    assert [tr.name for tr in fig.data] == ["s2", "l3", "s2p", "l3p"]
    two = sentence_one_figure(c, 3, text)
    assert len(two.layout.xaxis.ticktext) == len(ROWS[0])
    with pytest.raises(ValueError):
        Contrast.compute(PaddedBatch(c.large.values[:1], c.large.lengths[:1], c.large.tokens[:1]))


def test_figures_label_sites_and_escape_tokens():
    model = _model(norm_position="pre")
    arrays = _run(model, [[4, 5, EOS]], capture_names(model.hook_names))
    stats = StackStats.compute(arrays, model.hook_names, "encoder")
    labels = [f"site {i}" for i in range(len(stats.sites))]
    fig = stats_overview_figure(stats, ["<b>", "a", "<eos>"], labels)
    assert list(fig.data[0].y) == labels and fig.layout.yaxis.type == "category"
    assert list(fig.data[0].x) == ["0: &lt;b&gt;", "1: a", "2: &lt;eos&gt;"]  # unique: repeated tokens stay apart
    assert "&lt;b&gt;" in fig.layout.xaxis3.ticktext and isinstance(fig.to_plotly_json()["layout"]["xaxis3"]["tickvals"], list)
    points = ["input", *labels]
    res = residual_figure({"pre": (points, stats.stream_norm)}, d_model=32)
    assert list(res.data[1].x) == points and res.data[-1].y == (np.sqrt(32), np.sqrt(32))
    diagram = sublayer_diagram(NormDiagramText(sublayer="S", norm="N", post="POST", pre="PRE"))
    texts = [a.text for a in diagram.layout.annotations if a.text]
    assert texts.count("N") == 2 and texts.count("S") == 2 and "<b>POST</b>" in texts
    post_norm, pre_norm = (a.y for a in diagram.layout.annotations if a.text == "N")
    post_sub, pre_sub = (a.y for a in diagram.layout.annotations if a.text == "S")
    assert post_norm > post_sub and pre_norm < pre_sub  # after the sublayer in post-norm, before it in pre-norm


def test_the_projector_overview_puts_the_four_panels_in_one_row_with_the_same_numbers():
    """The projector's one-row overview (issue 39 §7) shows the same four grids as the 2×2, means beside means."""
    model = _model(norm_position="post")
    arrays = _run(model, [[4, 5, EOS]], capture_names(model.hook_names))
    stats = StackStats.compute(arrays, model.hook_names, "encoder")
    labels = [f"site {i}" for i in range(len(stats.sites))]
    square = stats_overview_figure(stats, ["a", "b", "<eos>"], labels)
    row = stats_overview_figure(stats, ["a", "b", "<eos>"], labels, one_row=True)
    by_title = {note.text.replace("<br>", " ").replace(":  ", ": "): note for note in row.layout.annotations}
    assert set(by_title) == {note.text for note in square.layout.annotations}
    assert [np.asarray(trace.z).tolist() for trace in row.data] == [
        np.asarray(square.data[i].z).tolist() for i in (0, 2, 1, 3)
    ]  # input mean, output mean, input std, output std
    assert [trace.coloraxis for trace in row.data] == ["coloraxis", "coloraxis", "coloraxis2", "coloraxis2"]
    domains = [row.layout[f"xaxis{i if i > 1 else ''}"].domain for i in range(1, 5)]
    assert all(a[1] < b[0] for a, b in pairwise(domains))  # side by side, not overlapping
    assert {tuple(row.layout[f"yaxis{i if i > 1 else ''}"].domain) for i in range(1, 5)} == {(0.0, 1.0)}
    assert row.layout.coloraxis.colorbar.x + 0.1 < row.layout.coloraxis2.colorbar.x  # the two bars apart
