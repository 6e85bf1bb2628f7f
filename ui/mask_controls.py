"""Widgets of the Masks page: which head to inspect, and which intervention to try.

The head picker uses the keys `kind`, `layer`, `head` bound to the URL, like the Attention-heads
page, so a shared link opens the same head on both. Interventions are returned as plain
`InterventionSpec`s for `ui.models.get_trace(..., interventions=...)`: they change one call's
computation, never the shared model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from transformer.checkpoint import ModelBundle
from transformer.interventions import InterventionSpec
from ui.i18n import current_language, labels_of, t
from viz.trace import module_path

KIND_KEY, LAYER_KEY, HEAD_KEY = "kind", "layer", "head"


def kinds_of(bundle: ModelBundle) -> list[str]:
    """Attention kinds the model has, in the paper's order."""
    return ["encoder", "decoder", "cross"] if bundle.config.is_encoder_decoder else ["decoder"]


def kind_name(kind: str) -> str:
    return t(f"masks.kind_{kind}")


RELABELLED = ("row", "kind", "causal_scope", "blocked", "block_in")  # widgets whose option labels change


def relabel_when_changed(signature: tuple, keys: tuple[str, ...] = RELABELLED) -> None:
    """Make widgets whose option labels changed (new language, edited sentences) show the new label.

    A widget whose value did not change keeps the label the browser drew; re-assigning the same
    value through session state (before the widget renders) makes Streamlit send it again.
    """
    signature = (current_language(), *signature)
    if st.session_state.get("masks_labels") != signature:
        for key in keys:
            if key in st.session_state:
                st.session_state[key] = st.session_state[key]
        st.session_state["masks_labels"] = signature


def _valid(key: str, options: list, fallback: object) -> None:
    """Seed or repair a widget's state before it renders (a URL may name a layer this model lacks)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback


def head_picker(bundle: ModelBundle) -> tuple[str, int, int]:
    """Attention kind, layer and head, in the URL like on the Attention-heads page (`?kind=cross&layer=1`).

    The kind is synced to the URL by hand, as its raw name: a bound selectbox would put the translated
    label there, and a link would then change with the language. The decoder's masked self-attention
    is the default here, since it is the one with a mask even for a single sentence.
    """
    kinds, config = kinds_of(bundle), bundle.config
    if KIND_KEY not in st.session_state and st.query_params.get(KIND_KEY) in kinds:
        st.session_state[KIND_KEY] = st.query_params[KIND_KEY]
    _valid(KIND_KEY, kinds, "decoder")
    layers, heads = list(range(config.n_layers)), list(range(config.n_heads))
    _valid(LAYER_KEY, layers, 0)
    _valid(HEAD_KEY, heads, 0)
    cols = st.columns(3)
    kind = cols[0].selectbox(t("masks.kind"), kinds, key=KIND_KEY, format_func=labels_of({k: kind_name(k) for k in kinds}))
    st.query_params[KIND_KEY] = kind
    layer = cols[1].selectbox(t("masks.layer"), layers, key=LAYER_KEY, bind="query-params")
    head = cols[2].selectbox(t("masks.head"), heads, key=HEAD_KEY, bind="query-params")
    return kind, int(layer), int(head)


@dataclass(frozen=True)
class InterventionChoice:
    """What the user switched on (plain values; `specs` turns them into interventions)."""

    no_causal: bool = False
    causal_layer: int | None = None  # None: every decoder layer
    blocked: tuple[int, ...] = ()  # key positions to hide
    block_in: tuple[str, ...] = ()  # attention kinds where they are hidden
    ablate: tuple[str, int, int] | None = None  # (kind, layer, head) whose output is zeroed

    def specs(self, n_layers: int) -> tuple[InterventionSpec, ...]:
        """Every decoder/encoder layer is addressed by name, so each spec is hashable and cacheable."""
        out: list[InterventionSpec] = []
        if self.no_causal:
            layers = range(n_layers) if self.causal_layer is None else [self.causal_layer]
            out += [InterventionSpec("no_causal", module_path("decoder", i)) for i in layers]
        if self.blocked:
            out += [InterventionSpec("block_keys", module_path(kind, i), keys=self.blocked)
                    for kind in self.block_in for i in range(n_layers)]
        if self.ablate is not None:
            kind, layer, head = self.ablate
            out.append(InterventionSpec("zero_output", module_path(kind, layer), head=head))
        return tuple(out)

    def touches(self, kind: str) -> bool:
        """Whether an edited mask lives in attention `kind` (so its pattern shows the edit)."""
        return (self.no_causal and kind == "decoder") or (bool(self.blocked) and kind in self.block_in)


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
        where = ["cross", "encoder"] if bundle.config.is_encoder_decoder else ["decoder"]
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
