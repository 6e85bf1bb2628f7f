"""The positional-encoding views: the table, wavelengths, similarity and the relative-position
matrices are the paper's formulas, and the figures carry exactly those numbers."""

import base64
import math

import numpy as np
import pytest
import torch

from hook_names import embed_module, hook_name, pos_module
from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.model import Transformer
from transformer.positional import sinusoidal_encoding
from viz.embedding_scale import EmbeddingScale, before_after_figure, cosine_similarity, learned_figure, norms_figure
from viz.positional import (
    MAX_HEATMAP_CELLS,
    PositionalText,
    pe_curves,
    pe_heatmap,
    position_stride,
    similarity,
    similarity_figure,
    square_stride,
    wavelength_figure,
    wavelengths,
)
from viz.relative_position import (
    RelativeCheck,
    angular_frequencies,
    least_squares_matrix,
    mapping_error,
    relative_figure,
    rotation_matrix,
)


def _decode(typed: dict) -> np.ndarray:
    """A plotly typed array ({dtype, bdata, shape}) back to NumPy."""
    array = np.frombuffer(base64.b64decode(typed["bdata"]), dtype=typed["dtype"])
    return array.reshape([int(n) for n in str(typed.get("shape", len(array))).split(",")])


@pytest.mark.parametrize("d_model", [8, 64, 512])
def test_pe_matches_the_formula_through_the_wavelengths(d_model):
    pe = sinusoidal_encoding(50, d_model).numpy().astype(np.float64)
    lam = wavelengths(d_model)  # 2π·10000^(2i/d)
    pos = np.arange(50)[:, None]
    for i in (0, d_model // 4, d_model // 2 - 1):
        assert np.allclose(pe[:, 2 * i], np.sin(2 * np.pi * pos[:, 0] / lam[i]), atol=1e-6)
        assert np.allclose(pe[:, 2 * i + 1], np.cos(2 * np.pi * pos[:, 0] / lam[i]), atol=1e-6)
        assert math.isclose(pe[7, 2 * i], math.sin(7 / 10000 ** (2 * i / d_model)), abs_tol=1e-6)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert 2 * np.pi < lam[-1] < 10000 * 2 * np.pi and np.all(np.diff(np.log(lam)) > 0)
    assert np.allclose(np.diff(np.log(lam)), np.log(10000) * 2 / d_model)  # geometric progression
    assert np.allclose(angular_frequencies(d_model), 2 * np.pi / lam)


def test_heatmap_shows_the_table_and_thins_positions_past_the_budget():
    pe = sinusoidal_encoding(100, 64).numpy()
    fig = pe_heatmap(pe)
    assert np.array_equal(_decode(fig.to_plotly_json()["data"][0]["z"]), pe)
    assert position_stride(100, 64) == 1
    k = position_stride(1024, 1024)
    assert k > 1 and -(-1024 // k) * 1024 <= MAX_HEATMAP_CELLS
    z = _decode(pe_heatmap(sinusoidal_encoding(1024, 1024).numpy(), stride=k).to_plotly_json()["data"][0]["z"])
    assert z.shape[1] == 1024 and z.size <= MAX_HEATMAP_CELLS  # every dimension kept: sines and cosines


def test_curves_and_wavelength_figures_show_the_chosen_dimensions():
    pe = sinusoidal_encoding(40, 16).numpy()
    fig = pe_curves(pe, [0, 3], PositionalText(dimension="dim"))
    assert [tr.name for tr in fig.data] == ["dim 0 (sin)", "dim 3 (cos)"]
    assert np.allclose(_decode(fig.to_plotly_json()["data"][1]["y"]), pe[:, 3])
    wave = wavelength_figure(16, 40, [3])
    assert wave.layout.yaxis.type == "log"
    chosen = wave.to_plotly_json()["data"][1]
    assert list(chosen["x"]) == [3] and np.allclose(_decode(chosen["y"]), wavelengths(16)[1])


def test_similarity_depends_only_on_the_distance():
    pe = sinusoidal_encoding(60, 32).numpy()
    sim = similarity(pe)
    assert np.allclose(np.diag(sim), 16, atol=1e-4)  # ‖PE‖² = d/2
    for p, q in [(3, 10), (20, 27), (40, 47)]:  # same distance, same dot product
        assert sim[p, q] == pytest.approx(sim[0, 7], abs=1e-4)
    omega = angular_frequencies(32)
    assert sim[5, 12] == pytest.approx(np.cos(omega * 7).sum(), abs=1e-4)
    fig = similarity_figure(sim, stride=square_stride(60))
    assert _decode(fig.to_plotly_json()["data"][0]["z"]).shape == (60, 60)
    k = square_stride(1024)
    assert k > 1 and (-(-1024 // k)) ** 2 <= MAX_HEATMAP_CELLS < (-(-1024 // (k - 1))) ** 2


@pytest.mark.parametrize(("d_model", "n_pos", "k"), [(16, 50, 1), (64, 100, 5), (512, 100, 17), (512, 600, 50)])
def test_relative_position_matrix_maps_pe_pos_to_pe_pos_plus_k(d_model, n_pos, k):
    pe = sinusoidal_encoding(n_pos, d_model).numpy()
    check = RelativeCheck.compute(pe, k)
    pe64 = pe.astype(np.float64)
    assert np.abs(check.closed @ pe64[0] - pe64[k]).max() < 1e-5  # one position by hand
    assert check.closed_error < 1e-5 and check.fitted_error < 1e-5
    assert check.difference < 1e-4  # the fit from data alone recovers the rotation
    block = check.closed[2:4, 2:4]
    assert np.allclose(block @ block.T, np.eye(2))  # each block is a rotation
    assert np.count_nonzero(check.closed) == 2 * d_model  # block-diagonal: 4 entries per sin/cos pair


def test_relative_position_check_can_fail():
    pe = sinusoidal_encoding(80, 16).numpy()
    wrong = rotation_matrix(16, 4)
    assert mapping_error(pe, wrong, 3) > 0.05  # the matrix for k=4 does not map by 3
    with pytest.raises(ValueError):
        least_squares_matrix(pe, 79)
    with pytest.raises(ValueError):
        rotation_matrix(15, 1)


def test_relative_figure_crops_to_the_requested_dimensions():
    check = RelativeCheck.compute(sinusoidal_encoding(64, 128).numpy(), 3)
    fig = relative_figure(check, 32)
    data = fig.to_plotly_json()["data"]
    assert [_decode(tr["z"]).shape for tr in data] == [(32, 32), (32, 32)]
    assert np.allclose(_decode(data[0]["z"]), check.closed[:32, :32], atol=1e-7)
    assert fig.layout.annotations[0].text == "M_k from the formula (k = 3)"  # the offset, filled in where it is drawn


def _model_arrays(positional: str, architecture: str = "encoder-decoder") -> tuple[dict, int]:
    torch.manual_seed(0)
    config = TransformerConfig(
        src_vocab_size=30,
        tgt_vocab_size=30,
        d_model=32,
        n_heads=4,
        d_ff=64,
        n_layers=1,
        dropout=0.0,
        max_len=40,
        positional=positional,
        architecture=architecture,
    )
    model = Transformer(config).eval()
    ids = torch.tensor([[5, 6, 7, 5, 6, 2]])
    stack = "encoder" if config.is_encoder_decoder else "decoder"
    names = [hook_name(embed_module(stack), "tokens"), hook_name(pos_module(stack), "pe"), hook_name(pos_module(stack), "out")]
    with torch.no_grad(), capture(model, names) as cache:
        model(ids if config.is_encoder_decoder else None, ids)
    return cache.numpy(), config.d_model


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_embedding_scale_argument_on_a_real_run(architecture):
    stack = "encoder" if architecture == "encoder-decoder" else "decoder"
    arrays, d = _model_arrays("sinusoidal", architecture)
    scale = EmbeddingScale.from_arrays(arrays, stack, list("abcabe"))
    norms = scale.norms()
    assert np.allclose(norms["pe"][1:], math.sqrt(d / 2), atol=1e-4)  # position 0 is (0, 1, 0, 1, ...): also √(d/2)
    assert np.allclose(norms["raw"] * math.sqrt(d), norms["scaled"])
    assert np.all(norms["raw"] < norms["pe"] / 2) and np.all(norms["scaled"] > norms["pe"] / 4)  # scaling matters
    assert np.allclose(scale.total, scale.scaled + scale.pe, atol=1e-5)
    assert not np.allclose(scale.total[0], scale.total[3])  # equal tokens, different positions
    assert np.allclose(scale.scaled[0], scale.scaled[3])


def test_no_positional_encoding_leaves_equal_tokens_equal():
    arrays, _ = _model_arrays("none")
    scale = EmbeddingScale.from_arrays(arrays, "encoder", list("abcabe"))
    assert np.all(scale.pe == 0) and np.allclose(scale.total[0], scale.total[3])


def test_token_figures_escape_labels_and_crop_dimensions():
    arrays, _ = _model_arrays("learned")
    tokens = ["<b>x</b>", "a", "b", "c", "d", "e"]
    scale = EmbeddingScale.from_arrays(arrays, "encoder", tokens)
    fig = before_after_figure(scale, 8)
    assert [_decode(tr["z"]).shape for tr in fig.to_plotly_json()["data"]] == [(6, 8)] * 3
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.layout.yaxis.ticktext
    bars = norms_figure(scale)
    assert "<b>" not in str(bars.layout.xaxis.ticktext)
    assert bars.data[-1].name == "√(d_model/2) = 4.00"  # d_model 32


def test_learned_figure_puts_both_tables_and_their_similarities_side_by_side():
    rng = np.random.default_rng(0)
    learned = rng.normal(0, 0.02, (20, 16)).astype(np.float32)
    sim = cosine_similarity(learned)
    assert np.allclose(np.diag(sim), 1) and np.abs(sim - np.eye(20)).max() < 0.9
    fig = learned_figure(learned, sinusoidal_encoding(20, 16).numpy())
    shapes = [_decode(tr["z"]).shape for tr in fig.to_plotly_json()["data"]]
    assert shapes == [(20, 16), (20, 20), (20, 16), (20, 20)]
