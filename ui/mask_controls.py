"""Widgets of the Masks page's experiments: which intervention to try.

The choice comes back as a plain `runs.experiments.InterventionChoice`; its `specs` go to
`ui.models.get_trace(..., interventions=...)`: they change one call's computation, never the shared model.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from runs.experiments import InterventionChoice, hideable_kinds
from transformer.checkpoint import ModelBundle
from ui.head_picker import kind_name
from ui.i18n import labels_of, t


def intervention_controls(bundle: ModelBundle, kind: str, layer: int, head: int, keys: Sequence[str]) -> InterventionChoice:
    """Toggle the causal mask, hide chosen tokens (`keys`: the positions that may be hidden), ablate a head."""
    cols = st.columns(3)
    with cols[0]:
        no_causal = st.toggle(t("masks.no_causal"), key="no_causal", bind="query-params")
        scope = st.segmented_control(t("masks.causal_scope"), ["all", "one"], key="causal_scope", default="all",
                                     required=True, bind="query-params", disabled=not no_causal,
                                     format_func=labels_of({s: t(f"masks.scope_{s}", layer=layer) for s in ("all", "one")}))
    with cols[1]:
        labels = [f"{i}: {tok if tok.strip() else '␣'}" for i, tok in enumerate(keys)]  # plain text; tells repeats apart
        if "blocked" in st.session_state:  # positions of a longer sentence picked before
            st.session_state["blocked"] = [i for i in st.session_state["blocked"] if 0 <= i < len(keys)]
        blocked = st.multiselect(t("masks.block"), list(range(len(keys))), key="blocked", bind="query-params",
                                 format_func=labels.__getitem__, placeholder=t("masks.block_placeholder"))
        where = hideable_kinds(bundle)
        block_in = st.multiselect(t("masks.block_in"), where, default=where[:1], key="block_in",
                                  bind="query-params", format_func=labels_of({k: kind_name(k) for k in where}))
    with cols[2]:
        ablate = st.toggle(t("masks.ablate"), key="ablate", bind="query-params")
        st.caption(t("masks.ablate_which", kind=kind_name(kind), layer=layer, head=head))
    return InterventionChoice(
        no_causal=bool(no_causal),
        causal_layer=layer if scope == "one" else None,
        blocked=tuple(sorted(blocked)),
        block_in=tuple(block_in),
        ablate=(kind, layer, head) if ablate else None,
    )
