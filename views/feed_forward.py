"""Feed-forward layers: per token and layer, the widening to d_ff and back, which hidden units fire
after the ReLU, how much the FFN adds to the residual stream next to attention, and its share of
the model's parameters (counted from the model).

One captured run per (model, text) (`ui.caches.get_feed_forward`); the pickers only change
what is drawn of it.
"""

from __future__ import annotations

import streamlit as st

from hook_names import ordinal
from runs.feed_forward import FeedForwardRun
from ui.caches import get_feed_forward
from ui.charts import show_figure
from ui.figure_words import feed_forward_text
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from ui.modern_sections import swiglu_section
from ui.page import section, show_run, start_page
from ui.prose import prose
from ui.safe import md_literal
from ui.url_choice import seed_choice, write_choice
from viz.ffn_figures import contributions_figure, expansion_figure, firing_figure, parameter_figure
from viz.tokens import visible_token

FFN = (
    r"\mathrm{FFN}(x)=\max(0,\;xW_1+b_1)\,W_2+b_2,"
    r"\qquad W_1\in\mathbb{R}^{d_{model}\times d_{ff}},\;W_2\in\mathbb{R}^{d_{ff}\times d_{model}}"
)


def _parameters(run: FeedForwardRun) -> None:
    params = run.parameters
    share = params.share("feed_forward")
    show_figure(
        parameter_figure(params.counts, feed_forward_text()),
        "ffn-parameters",
        key="ffn_params",
        html=False,
    )
    st.metric(  # under the chart, not above it: the chart starts the first 1280 × 720 screen
        t("feed_forward.param_metric"),
        f"{100 * share:.0f}%",
        help=t("feed_forward.param_help", ffn=f"{params.counts['feed_forward']:,}", total=f"{params.total:,}"),
    )
    st.caption(
        t(
            "feed_forward.param_caption",
            ffn=f"{params.counts['feed_forward']:,}",
            total=f"{params.total:,}",
            share=f"{100 * share:.0f}%",
            attention=f"{100 * params.share('attention'):.0f}%",
        )
    )


def _pickers(run: FeedForwardRun) -> tuple[str, int, int]:
    cols = st.columns(3)
    stacks = list(run.stacks)
    seed_choice("ffn_stack", stacks, stacks[-1])
    stack = cols[0].selectbox(
        t("feed_forward.stack"),
        stacks,
        key="ffn_stack",
        disabled=len(stacks) == 1,
        format_func=labels_of({s: t(f"feed_forward.stack_{s}") for s in stacks}),
    )
    write_choice("ffn_stack", stack, stacks[-1])
    layers = list(range(len(run.views[stack])))
    keep_valid("ffn_layer", layers, 0)
    layer = cols[1].selectbox(
        t("feed_forward.layer"), layers, key="ffn_layer", bind="query-params", format_func=lambda i: str(ordinal(i))
    )
    tokens = run.tokens(stack)
    positions = list(range(len(tokens)))
    st.session_state.setdefault("ffn_token", min(1, len(positions) - 1))  # the first real token, not <bos>
    keep_valid("ffn_token", positions, min(1, len(positions) - 1))
    token = cols[2].selectbox(
        t("feed_forward.token"),
        positions,
        key="ffn_token",
        format_func=labels_of({i: f"{i}: {visible_token(tokens[i])}" for i in positions}),
    )
    return stack, int(layer), int(token)


def _expansion(run: FeedForwardRun, stack: str, layer: int, token: int) -> None:
    view = run.views[stack][layer]
    st.latex(FFN)
    prose(t("feed_forward.expansion_text", d_model=view.d_model, d_ff=view.d_ff, ratio=f"{view.expansion:g}"))
    x = run.ffn_input(stack, layer, token)
    show_figure(
        expansion_figure(x, view.hidden[token], view.output[token], feed_forward_text()),
        f"ffn-expansion-{stack}-L{layer}-T{token}",
        key="ffn_expansion",
    )
    fired = view.fired(token)
    st.caption(
        t(
            "feed_forward.expansion_caption",
            token=md_literal(visible_token(view.tokens[token])),
            fired=fired,
            d_ff=view.d_ff,
            share=f"{100 * fired / view.d_ff:.0f}%",
        )
    )


def _firing(run: FeedForwardRun, stack: str, layer: int) -> None:
    view = run.views[stack][layer]
    prose(t("feed_forward.firing_text"))
    show_figure(firing_figure(view, feed_forward_text(), run.raw_bytes(stack)), f"ffn-relu-{stack}-L{layer}", key="ffn_relu")
    st.caption(
        t(
            "feed_forward.firing_caption",
            mean=f"{100 * view.mean_firing:.0f}%",
            never=view.never_firing,
            d_ff=view.d_ff,
        )
    )


def _contributions(run: FeedForwardRun, stack: str, token: int) -> None:
    prose(t("feed_forward.residual_text"))
    every = st.toggle(t("feed_forward.all_tokens"), value=True, key="ffn_all_tokens")
    contributions = run.contributions[stack]
    show_figure(
        contributions_figure(contributions, None if every else token, feed_forward_text()),
        f"ffn-residual-{stack}",
        key="ffn_residual",
    )
    if stack == "decoder" and "cross_attn" not in contributions.kinds:
        st.caption(t("feed_forward.no_cross"))


ctx = start_page("feed_forward")
with st.spinner(t("feed_forward.running")):
    run = get_feed_forward(ctx.model.key, ctx.text)
if not ctx.bundle.config.is_encoder_decoder:
    st.info(t("feed_forward.decoder_only"), icon=":material/info:")
swiglu_section(ctx.bundle, ctx.text)  # a SwiGLU model: its gate, on the text
_parameters(run)
show_run(run.trace, ctx.bundle)
stack, layer, token = _pickers(run)

# 1. One token through the FFN: d_model → d_ff → d_model.
section(1, "feed_forward.expansion_header")
_expansion(run, stack, layer, token)

# 2. Which hidden units fire, token by token.
section(2, "feed_forward.firing_header")
_firing(run, stack, layer)

# 3. How much each sublayer adds to the residual stream.
section(3, "feed_forward.residual_header")
_contributions(run, stack, token)
