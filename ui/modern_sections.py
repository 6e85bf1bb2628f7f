"""Page sections about today's decoder parts (rotary positions, grouped-query attention, RMSNorm, SwiGLU), shown on
a model that has them (a converted Llama / Qwen folder, the shipped `gpt-en-zh`). Every number is the model's or
the text's, from `runs.modern_page`; the pages call one function each."""

from __future__ import annotations

import streamlit as st

from runs.modern_page import is_modern, kv_groups, rms_statistics, rope_frequencies, rotary, swiglu_statistics
from transformer.storage.checkpoint import ModelBundle
from ui.charts import show_figure
from ui.i18n import t
from ui.prose import prose
from viz.rotary import FrequencyText, MovedText, frequency_figure, moved_scores_figure

ROPE = (
    r"\begin{pmatrix} q'_i \\ q'_{i + d_k/2} \end{pmatrix} = "
    r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
    r"\begin{pmatrix} q_i \\ q_{i + d_k/2} \end{pmatrix}, \qquad \theta_i = \mathrm{rope\_theta}^{-2i/d_k}"
)
RMSNORM = r"\mathrm{RMSNorm}(x) = g \odot \frac{x}{\sqrt{\frac{1}{d_{model}} \sum_j x_j^2 + \epsilon}}"
SWIGLU = (
    r"\mathrm{FFN}_{\mathrm{SwiGLU}}(x) = \left(\mathrm{SiLU}(x W_1) \odot x W_3\right) W_2, \quad "
    r"\mathrm{SiLU}(z) = z\,\sigma(z)"
)


def _heads(heads: list[int]) -> str:
    return f"{heads[0]}–{heads[-1]}" if len(heads) > 1 else str(heads[0])


def rotary_section(bundle: ModelBundle, text: str | None) -> None:
    """Positional page: RoPE as the model has it, its frequencies, and the score that depends on distance alone."""
    if not is_modern(bundle):
        return
    c = bundle.config
    st.subheader(t("modern.rope_title"))
    prose(t("modern.rope_text", theta=f"{c.rope_theta:,.0f}", d_k=c.d_k, pairs=c.d_k // 2))
    st.latex(ROPE)
    freqs = rope_frequencies(bundle)
    axes = FrequencyText(t("modern.rope_pair"), t("modern.rope_rate"))
    show_figure(frequency_figure(freqs, c.rope_theta, axes), "rope_frequencies")
    st.caption(t("modern.rope_freq_caption", fast=f"{freqs[0]:.3g}", slow=f"{freqs[-1]:.2e}", pairs=len(freqs)))
    view = rotary(bundle, text) if text else None
    if view is None:
        st.info(t("modern.rope_needs_text"))
        return
    words = MovedText(
        moved=t("modern.rope_moved"),
        distance=t("modern.rope_other_distances"),
        shift_axis=t("modern.rope_shift_axis"),
        distance_axis=t("modern.rope_distance_axis"),
        score=t("modern.rope_score"),
    )
    show_figure(moved_scores_figure(view.shifts, view.moved_scores, view.distances, view.distance_scores, words), "rope_moved")
    prose(
        t(
            "modern.rope_live",
            q=view.query_token,
            k=view.key_token,
            back=-view.distance,
            score=f"{view.moved_scores[0]:.4f}",
            n=len(view.shifts),
            spread=f"{view.spread:.1e}",
            low=f"{view.distance_scores.min():.3f}",
            high=f"{view.distance_scores.max():.3f}",
        )
    )


def no_position_vector_note(bundle: ModelBundle) -> None:
    """Positional page, above the paper's table: this model adds no position vector."""
    if is_modern(bundle):
        st.info(t("modern.rope_no_pe"))


def kv_groups_note(bundle: ModelBundle) -> None:
    """Heads page: which query heads share each key/value head (grouped-query attention)."""
    c = bundle.config
    if not is_modern(bundle) or c.kv_heads == c.n_heads:
        return
    groups = "; ".join(t("modern.kv_group", kv=kv, heads=_heads(heads)) for kv, heads in kv_groups(bundle))
    st.info(t("modern.kv_groups", n_heads=c.n_heads, kv_heads=c.kv_heads, size=c.n_heads // c.kv_heads, groups=groups))


def rmsnorm_section(bundle: ModelBundle, text: str | None) -> None:
    """LayerNorm page: RMSNorm beside LayerNorm, with the text's statistics at the first RMSNorm."""
    if bundle.config.norm != "rmsnorm":
        return
    st.subheader(t("modern.rms_title"))
    prose(t("modern.rms_text"))
    st.latex(RMSNORM)
    if text:
        s = rms_statistics(bundle, text)
        prose(
            t(
                "modern.rms_live",
                mean_in=f"{s.mean_in[0]:.3f} … {s.mean_in[1]:.3f}",
                rms_in=f"{s.rms_in[0]:.3f} … {s.rms_in[1]:.3f}",
                rms_out=f"{s.rms_out[0]:.4f} … {s.rms_out[1]:.4f}",
                mean_out=f"{s.mean_out[0]:.3f} … {s.mean_out[1]:.3f}",
            )
        )
    st.info(t("modern.rms_below"))


def swiglu_section(bundle: ModelBundle, text: str | None) -> None:
    """Feed-forward page: the SwiGLU gate, with how much of it the text opens in layer 1."""
    if bundle.config.feed_forward != "swiglu":
        return
    st.subheader(t("modern.swiglu_title"))
    prose(t("modern.swiglu_text", d_ff=bundle.config.d_ff, d_model=bundle.config.d_model))
    st.latex(SWIGLU)
    if text:
        s = swiglu_statistics(bundle, text)
        prose(t("modern.swiglu_live", passed=f"{100 * s.passed:.0f}", negative=f"{100 * s.negative:.0f}", d_ff=s.d_ff))


def block_section(bundle: ModelBundle) -> None:
    """Architecture page: the model's real block beside the paper's."""
    if not is_modern(bundle):
        return
    c = bundle.config
    st.subheader(t("modern.block_title"))
    rows = [
        (t("modern.block_position"), t("modern.block_paper_position"), t("modern.block_rope", theta=f"{c.rope_theta:,.0f}")),
        (
            t("modern.block_attention"),
            t("modern.block_paper_attention"),
            t("modern.block_gqa", h=c.n_heads, kv=c.kv_heads, d_k=c.d_k),
        ),
        (t("modern.block_norm"), t("modern.block_paper_norm"), t("modern.block_rms")),
        (t("modern.block_ffn"), t("modern.block_paper_ffn"), t("modern.block_swiglu", d_ff=c.d_ff)),
        (t("modern.block_stack"), t("modern.block_paper_stack"), t("modern.block_decoder", n=c.n_layers)),
    ]
    header = f"| | {t('modern.block_paper')} | {t('modern.block_this')} |\n| --- | --- | --- |\n"
    st.markdown(header + "\n".join(f"| {a} | {b} | {m} |" for a, b, m in rows))
