"""The head finder: every layer × head of the model with its corpus means, filtered ("previous token ≥ 0.6 in layers
1–2") and sorted by one score, each row linking to its head's corpus page. The filter lives in the URL."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from hook_names import ordinal
from runs.atlas_page import filter_rows, head_rows
from transformer.probes.atlas import Atlas
from ui.head_picker import kind_name
from ui.i18n import current_language, labels_of, t
from ui.labels import keep_valid
from ui.pages.atlas.head import score_label
from ui.url_choice import seed_choice, write_choice

SCORE_KEY, MIN_KEY, FIRST_KEY, LAST_KEY, KIND_KEY = "f_score", "f_min", "f_first", "f_last", "f_kind"
THRESHOLDS = [f"{0.05 * i:.2f}" for i in range(21)]  # "0.00" … "1.00", as the URL holds them (entropy, in bits, too)
ALL = "all"


def head_link(model_key: str, kind: str, layer: int, head: int) -> str:
    """The corpus page opened on one head (relative link, layer and head from 1 as shown)."""
    params = {"model": model_key, "atlas_view": "head", "a_kind": kind, "a_layer": ordinal(layer), "a_head": ordinal(head)}
    if current_language() != "en":
        params["lang"] = current_language()
    return "atlas?" + urlencode(params)


def finder_section(model_key: str, atlas: Atlas, n_layers: int) -> None:
    """The filter controls (bound to the URL) and the table of matching heads."""
    st.caption(t("atlas.finder_caption"))
    names = list(atlas.names)
    kinds = list(dict.fromkeys(h["kind"] for h in atlas.heads.values()))
    cols = st.columns([3, 2, 2, 2, 3])
    seed_choice(SCORE_KEY, names, names[0])
    score = cols[0].selectbox(
        t("atlas.finder_score"), names, key=SCORE_KEY, format_func=labels_of({n: score_label(n) for n in names})
    )
    write_choice(SCORE_KEY, score, names[0])
    seed_choice(MIN_KEY, THRESHOLDS, THRESHOLDS[0])
    low_text = cols[1].selectbox(t("atlas.finder_min"), THRESHOLDS, key=MIN_KEY)
    write_choice(MIN_KEY, low_text, THRESHOLDS[0])
    low = float(low_text)
    layers = list(range(1, n_layers + 1))
    keep_valid(FIRST_KEY, layers, 1)
    keep_valid(LAST_KEY, layers, n_layers)
    if LAST_KEY not in st.session_state and not st.query_params.get(LAST_KEY):
        st.session_state[LAST_KEY] = n_layers
    first = cols[2].selectbox(f"{t('atlas.finder_layers')} ≥", layers, key=FIRST_KEY, bind="query-params")
    last = cols[3].selectbox(f"{t('atlas.finder_layers')} ≤", layers, key=LAST_KEY, bind="query-params")
    options = [ALL, *kinds]
    seed_choice(KIND_KEY, options, ALL)
    kind = cols[4].selectbox(
        t("atlas.finder_kind"),
        options,
        key=KIND_KEY,
        format_func=labels_of({ALL: t("atlas.finder_all_kinds"), **{k: kind_name(k) for k in kinds}}),
    )
    write_choice(KIND_KEY, kind, ALL)
    first, last = min(first, last), max(first, last)
    rows = head_rows(atlas)
    kept = filter_rows(rows, score=score, at_least=low, layers=(first, last), kinds=None if kind == ALL else [kind])
    st.caption(
        t(
            "atlas.finder_count",
            shown=len(kept),
            total=len(rows),
            score=score_label(score),
            min=f"{low:.2f}",
            first=first,
            last=last,
        )
    )
    if not kept:
        st.info(t("atlas.finder_none"), icon=":material/filter_alt_off:")
        return
    table = {
        t("atlas.col_open"): [head_link(model_key, r.kind, r.layer, r.head) for r in kept],
        t("atlas.col_kind"): [kind_name(r.kind) for r in kept],
        t("atlas.col_layer"): [ordinal(r.layer) for r in kept],
        t("atlas.col_head"): [ordinal(r.head) for r in kept],
        **{score_label(n): [r.scores.get(n) for r in kept] for n in names},
        t("atlas.col_chosen"): [score_label(r.chosen) if r.chosen else "" for r in kept],
    }
    config = {
        t("atlas.col_open"): st.column_config.LinkColumn(display_text=t("atlas.col_open_text")),
        **{score_label(n): st.column_config.NumberColumn(format="%.2f") for n in names},
    }
    st.dataframe(table, column_config=config, hide_index=True, width="stretch", key="atlas_finder_table")
