"""The output distribution: softmax over the vocabulary at each output position, temperature,
greedy vs sampling, and generation one token at a time.

The URL carries the whole run (`mode`, `temp`, `seed`, `topk`, `steps`): the tokens written so far
are replayed from it (`runs.output`), so a shared link shows the same sequence and the same bars.
"""

from __future__ import annotations

import streamlit as st

from runs.output import MAX_TOP_K, OutputSteps, SamplingSettings
from ui.caches import get_output_steps
from ui.charts import show_figure
from ui.figure_words import distribution_text
from ui.i18n import labels_of, t
from ui.page import start_page
from ui.safe import md_literal
from ui.url_choice import seed_choice, write_choice
from ui.url_values import bounded_int
from viz.output_distribution import distribution_figure, rest_of_vocabulary
from viz.tokens import visible_token

SOFTMAX = r"p_i=\mathrm{softmax}(z/T)_i=\frac{e^{z_i/T}}{\sum_{j=1}^{|V|} e^{z_j/T}}"
MODES = ("greedy", "sample")
STEPS_KEY, POSITION_KEY, RUN_KEY = "out_steps", "out_pos", "out_run"
MAX_STEPS = 512  # no model here reads more tokens than this


def _steps_from_url(run_key: tuple[str, str]) -> int:
    """The number of steps taken, from session state, else from `?steps=` (range-checked), else 0.

    Another model or text starts over: its tokens are not the ones these steps wrote.
    """
    if st.session_state.get(RUN_KEY, run_key) != run_key:
        _set_steps(0)
    st.session_state[RUN_KEY] = run_key
    if STEPS_KEY not in st.session_state:
        st.session_state[STEPS_KEY] = bounded_int(st.query_params.get("steps"), 0, MAX_STEPS) or 0
    return int(st.session_state[STEPS_KEY])


def _set_steps(n: int) -> None:
    st.session_state[STEPS_KEY] = n
    st.session_state.pop(POSITION_KEY, None)  # show the newest position after a step
    if n:
        st.query_params["steps"] = str(n)
    else:
        st.query_params.pop("steps", None)


def _settings() -> tuple[SamplingSettings, int]:
    """The mode, temperature, seed and k widgets (all in the URL) → sampling settings and k."""
    cols = [st.container(), st.container(), *st.columns(2, vertical_alignment="bottom")]
    seed_choice("mode", MODES, MODES[0])
    mode = (
        cols[0].segmented_control(
            t("output.mode"), MODES, key="mode", required=True, format_func=labels_of({m: t(f"output.mode_{m}") for m in MODES})
        )
        or MODES[0]
    )
    write_choice("mode", mode, MODES[0])
    temperature = cols[1].slider(
        t("output.temperature"), 0.0, 2.0, 1.0, 0.05, key="temp", bind="query-params", help=t("output.temperature_help")
    )
    seed = cols[2].number_input(
        t("output.seed"), 0, 1_000_000, 0, key="seed", bind="query-params", disabled=mode == "greedy", help=t("output.seed_help")
    )
    k = cols[3].slider(t("output.top_k"), 3, MAX_TOP_K, 10, key="topk", bind="query-params")
    settings = SamplingSettings(greedy=mode == "greedy", temperature=float(temperature), seed=int(seed))
    return settings, int(k)


def _sequence(run: OutputSteps, encoder_decoder: bool) -> None:
    """What the model has read and written so far, shown literally."""
    if encoder_decoder:
        st.markdown(f"**{t('output.encoder_reads')}**")
        st.code(" · ".join(map(visible_token, run.source_tokens)), language=None, wrap_lines=True)
    st.markdown(f"**{t('output.sequence')}**")
    written = " · ".join(map(visible_token, run.generated_tokens)) or "∅"
    st.code(f"{' · '.join(map(visible_token, run.prompt_tokens))}  ⟶  {written}", language=None, wrap_lines=True)
    st.caption(t("output.sequence_caption", n=len(run.generated_ids)))


def _buttons(run: OutputSteps, steps: int) -> None:
    """Next token / to the end / start over, in one row that wraps: each button as wide as its label (three fixed
    columns beside the open sidebar cut "Next token" to "Next t…")."""
    row = st.container(horizontal=True, gap="small")
    n = len(run.generated_ids)
    row.button(
        t("output.next"),
        key="out_next",
        on_click=_set_steps,
        args=(n + 1,),
        disabled=run.finished,
        type="primary",
        icon=":material/skip_next:",
    )
    row.button(
        t("output.to_end"),
        key="out_end",
        on_click=_set_steps,
        args=(MAX_STEPS,),
        disabled=run.finished,
        icon=":material/fast_forward:",
    )
    row.button(
        t("output.reset"), key="out_reset", on_click=_set_steps, args=(0,), disabled=steps == 0, icon=":material/restart_alt:"
    )
    if run.finished:
        st.caption(t("output.finished"))
    else:
        st.caption(t("output.next_will", token=md_literal(visible_token(run.chosen_tokens[-1]))))


def _position(run: OutputSteps, settings: SamplingSettings, architecture: str) -> None:
    """One position's top-k bars, picked among every output position so far (default: the next one)."""
    positions = list(range(run.n_positions))
    if st.session_state.get(POSITION_KEY) not in positions:
        st.session_state[POSITION_KEY] = positions[-1]
    labels = {i: f"{i}: {visible_token(run.reads[i])} → {visible_token(run.chosen_tokens[i])}" for i in positions}
    if len(positions) > 1:
        pos = st.select_slider(t("output.position"), positions, key=POSITION_KEY, format_func=labels.__getitem__)
    else:
        pos = positions[0]
    dist = run.distributions[pos]
    chosen_id = run.chosen[pos]
    chosen = dist.top_ids.index(chosen_id) if chosen_id in dist.top_ids else None
    text = distribution_text(
        t("output.chart_title", pos=pos, reads=visible_token(run.reads[pos]), T=f"{settings.temperature:.2f}")
    )
    fig = distribution_figure(dist.top_tokens, dist.top_probs, chosen, text, dist.top_hex)
    show_figure(fig, "output-distribution", key="out_chart")
    rest = rest_of_vocabulary(dist.top_probs)
    st.caption(t("output.rest", k=len(dist.top_probs), rest=f"{rest:.3f}", vocab=len(dist.probs)))
    if chosen is None:
        st.caption(
            t(
                "output.chosen_outside",
                token=md_literal(visible_token(run.chosen_tokens[pos])),
                p=f"{float(dist.probs[chosen_id]):.4f}",
            )
        )
    rows = {"encoder-decoder": "output.rows_enc_dec", "decoder-only": "output.rows_dec_only"}
    st.caption(t(rows.get(architecture, "encoder_only.output_rows")))


def _table(run: OutputSteps) -> None:
    """Every output position: what it reads, what it wrote, with what probability, and the greedy choice."""
    with st.expander(t("output.table_header")):
        names = [t(f"output.col_{c}") for c in ("position", "reads", "writes", "p_writes", "top", "p_top")]
        rows = []
        for i, dist in enumerate(run.distributions):
            chosen = run.chosen[i]
            rows.append(
                dict(
                    zip(
                        names,
                        [
                            i,
                            visible_token(run.reads[i]),
                            visible_token(run.chosen_tokens[i]),
                            float(dist.probs[chosen]),
                            visible_token(dist.top_tokens[0]),
                            float(dist.top_probs[0]),
                        ],
                        strict=True,
                    )
                )
            )
        st.dataframe(
            rows,
            hide_index=True,
            key="out_table",
            column_config={
                names[3]: st.column_config.NumberColumn(format="%.4f"),
                names[5]: st.column_config.NumberColumn(format="%.4f"),
            },
        )


def _explain() -> None:
    with st.expander(t("output.explain_header"), expanded=True):
        st.latex(SOFTMAX)
        st.markdown(t("output.explain_softmax"))
        st.markdown(t("output.explain_temperature"))
        st.markdown(t("output.explain_modes"))


ctx = start_page("output")
encoder_decoder = ctx.bundle.config.is_encoder_decoder
encoder_only = ctx.bundle.config.is_encoder_only  # BERT: a prediction per position, nothing generated
left, right = st.columns([5, 6], gap="large")
steps_box = left.container()  # the step buttons first: on a projector they stay above the fold
with left:
    settings, k = _settings()
steps = _steps_from_url((ctx.model.key, ctx.text))
with st.spinner(t("output.running")):
    run = get_output_steps(ctx.model.key, ctx.text, settings, steps, k)
if run.truncated:
    st.warning(t("output.truncated"))
with steps_box:
    if not encoder_only:  # nothing is generated: there is no next step
        _buttons(run, steps)
with left:
    if encoder_only:
        st.markdown(f"**{t('output.encoder_reads')}**")
        st.code(" · ".join(map(visible_token, run.source_tokens)), language=None, wrap_lines=True)
    else:
        _sequence(run, encoder_decoder)
    # under the settings, not above the chart: the 1280 × 720 first screen shows the distribution
    note = "encoder_only.output" if encoder_only else "output.enc_dec_note" if encoder_decoder else "output.dec_only_note"
    st.info(t(note), icon=":material/info:")
with right:
    _position(run, settings, ctx.bundle.config.architecture)
_table(run)
_explain()
