"""Widgets of the Masks page's experiments: the causal mask switch, hidden tokens, an ablated head.

The choices come back as plain values (`runs.experiments.InterventionChoice`, the lifted layers);
their specs go to `ui.caches.get_trace(..., interventions=...)`: they change one call's
computation, never the shared model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from hook_names import ordinal
from runs.experiments import AblationDefault, Head, InterventionChoice, hideable_kinds
from transformer.storage.checkpoint import ModelBundle
from ui.head_picker import kind_name
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from viz.tokens import TokenAxis

ABLATE_HEAD_KEY = "ablate_head"  # session-state key and URL parameter ("auto" or "cross-1-0")
AUTO = "auto"


def causal_controls(layer: int) -> tuple[bool, tuple[int, ...] | None]:
    """The causal-mask switch and where it applies: (switched off?, the decoder layers whose mask is
    lifted: None for every layer, (`layer`,) for the layer picked above)."""
    cols = st.columns([2, 3], vertical_alignment="bottom")
    with cols[0]:
        off = st.toggle(t("masks.no_causal"), key="no_causal", bind="query-params")
    with cols[1]:
        scope = st.segmented_control(
            t("masks.causal_scope"),
            ["all", "one"],
            key="causal_scope",
            default="all",
            required=True,
            bind="query-params",
            disabled=not off,
            format_func=labels_of({s: t(f"masks.scope_{s}", layer=ordinal(layer)) for s in ("all", "one")}),
        )
    return bool(off), (layer,) if scope == "one" else None


def head_key(head: Head) -> str:
    kind, layer, index = head
    return f"{kind}-{layer}-{index}"


def head_label(head: Head) -> str:
    kind, layer, index = head
    return t("masks.ablate_which", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(index))


def _ablated_head(heads: Sequence[Head], resolve: Callable[[], AblationDefault], fallback: Head) -> Head:
    """The head picker of the ablation ("a head that matters here" by default, or any head), synced to
    `?ablate_head=` by hand as its raw key (a bound selectbox would put the translated label there).
    Without an importance table the default is `fallback` (the head picked above)."""
    options = [AUTO, *map(head_key, heads)]
    if ABLATE_HEAD_KEY not in st.session_state:
        st.session_state[ABLATE_HEAD_KEY] = st.query_params.get(ABLATE_HEAD_KEY, AUTO)
    keep_valid(ABLATE_HEAD_KEY, options, AUTO)
    labels = {AUTO: t("masks.ablate_auto"), **{head_key(h): head_label(h) for h in heads}}
    pick = st.selectbox(t("masks.ablate_pick"), options, key=ABLATE_HEAD_KEY, format_func=labels_of(labels))
    if pick == AUTO:
        st.query_params.pop(ABLATE_HEAD_KEY, None)
        found = resolve()
        if found.head is None:
            st.caption(t("masks.ablate_no_table", head=head_label(fallback)))
            return fallback
        if found.changes_output:
            share = found.score.changed if found.score else 0.0
            st.caption(t("masks.ablate_found", head=head_label(found.head), share=f"{share:.0%}"))
        else:
            st.caption(t("masks.ablate_not_found", n=found.checked, head=head_label(found.head)))
        return found.head
    st.query_params[ABLATE_HEAD_KEY] = pick
    return heads[options.index(pick) - 1]


def intervention_controls(
    bundle: ModelBundle,
    keys: Sequence[str],
    heads: Sequence[Head],
    resolve: Callable[[], AblationDefault],
    fallback: Head,
    keys_hex: Sequence[str] = (),
) -> InterventionChoice:
    """Hide chosen tokens (`keys`: the positions that may be hidden; `keys_hex` their raw bytes, "" where a label is
    the text) and ablate a head (`heads`: every head; `resolve()` finds the default, a head whose removal changes
    this output, only when asked; `fallback` is the default without an importance table)."""
    cols = st.columns(2)
    with cols[0]:
        axis = TokenAxis(tuple(keys), hex=tuple(keys_hex) or None)
        labels = [axis.option_label(i, t("bytes.option")) for i in range(len(keys))]  # plain text; tells repeats apart
        if "blocked" in st.session_state:  # positions of a longer sentence picked before
            st.session_state["blocked"] = [i for i in st.session_state["blocked"] if 0 <= i < len(keys)]
        blocked = st.multiselect(
            t("masks.block"),
            list(range(len(keys))),
            key="blocked",
            bind="query-params",
            format_func=labels.__getitem__,
            placeholder=t("masks.block_placeholder"),
        )
        where = hideable_kinds(bundle)
        block_in = st.multiselect(
            t("masks.block_in"),
            where,
            default=where[:1],
            key="block_in",
            bind="query-params",
            format_func=labels_of({k: kind_name(k) for k in where}),
        )
    with cols[1]:
        ablate = st.toggle(t("masks.ablate"), key="ablate", bind="query-params")
        head = _ablated_head(heads, resolve, fallback) if ablate else None
    return InterventionChoice(blocked=tuple(sorted(blocked)), block_in=tuple(block_in), ablate=head)
