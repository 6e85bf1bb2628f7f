"""One head across the corpus: its mean and spread of every score, and its top sentences drawn small, each linking to
the heads page with that sentence and head enlarged."""

from __future__ import annotations

import streamlit as st

from hook_names import ordinal
from runs.atlas_page import heads_query
from transformer.probes.atlas import Atlas, head_key
from ui.atlas_data import head_pattern
from ui.charts import show_figure
from ui.head_picker import HEAD_KEY, KIND_KEY, LAYER_KEY, kind_name
from ui.i18n import current_language, labels_of, t
from ui.inputs import TEXT_KEY
from ui.labels import keep_valid
from ui.safe import md_literal
from viz.atlas_figures import MultipleText, thumbnail

GO_KEY = "atlas_go"  # session state: the heads page's URL parameters to open on the next run
SCORE_KEY = "atlas_score"  # the score whose top sentences are shown (URL: ?atlas_score=previous_token)


def go_to_heads(params: dict[str, str]) -> None:
    """Button callback (before the next run draws any widget): put the sentence in the shared text box, forget the
    heads page's last head (its pickers would keep it over the link's), and ask the next run to switch pages."""
    st.session_state[TEXT_KEY] = params["text"]
    for key in (KIND_KEY, LAYER_KEY, HEAD_KEY):
        st.session_state.pop(key, None)
    st.session_state[GO_KEY] = params


def follow_heads_link() -> None:
    """The page's first call: open the heads page if a button asked for it on the last run."""
    params = st.session_state.pop(GO_KEY, None)
    if params:  # the model and the text are widgets' (bound to the URL): they travel in session state, not here
        st.switch_page("views/heads.py", query_params={k: params[k] for k in (KIND_KEY, LAYER_KEY, HEAD_KEY)})


def score_label(name: str) -> str:
    return t(f"atlas.score_{name}")


def _number(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def head_section(model_key: str, atlas: Atlas, kind: str, layer: int, head: int, score_column) -> None:
    """The head's top sentences drawn small (first: a chart on the first screen), then its corpus scores
    (`layer`, `head` 0-based, shown from 1); the score whose top sentences are shown is picked in `score_column`."""
    entry = atlas.heads.get(head_key(kind, layer, head))
    if not entry or not entry["scores"]:
        st.subheader(t("atlas.head_title", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head)))
        st.info(t("atlas.no_scores"), icon=":material/info:")
        return
    names = [n for n in atlas.names if n in entry["scores"]]
    chosen = entry.get("chosen")
    keep_valid(SCORE_KEY, names, chosen or names[0])
    if SCORE_KEY not in st.session_state:
        st.session_state[SCORE_KEY] = chosen or names[0]
    labels = labels_of({n: score_label(n) for n in names})
    score = score_column.selectbox(t("atlas.top_for"), names, key=SCORE_KEY, format_func=labels)
    top = entry["top_by_score"].get(score, [])
    if not top:
        st.info(t("atlas.no_top"), icon=":material/info:")
    else:
        _top_sentences(model_key, top, score, kind, layer, head)
    if chosen:
        st.markdown(t("atlas.chosen", score=score_label(chosen), mean=_number(entry["scores"][chosen])))
    st.subheader(t("atlas.head_title", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head)))
    st.table(
        {
            t("atlas.score"): [score_label(n) for n in names],
            t("atlas.mean"): [_number(entry["scores"][n]) for n in names],
            t("atlas.spread"): [_number(entry["spread"][n]) for n in names],
            t("atlas.applies"): [str(entry["n"][n]) for n in names],
        }
    )


def _top_sentences(model_key: str, top: list[dict], score: str, kind: str, layer: int, head: int) -> None:
    """A row of small patterns, one per top sentence, each with its text, score and heads-page button."""
    lang = current_language()
    columns = st.columns(min(len(top), 5))
    for i, item in enumerate(top):
        with columns[i % len(columns)]:
            weights, queries, keys = head_pattern(model_key, item["text"], kind, layer, head)
            fig = thumbnail(weights, queries, keys, MultipleText(t("heads.weight"), t("bytes.hover")))
            show_figure(fig, f"atlas_top_{i + 1}", key=f"atlas_top_{i}", html=False)
            st.markdown(md_literal(item["text"]))
            st.caption(t("atlas.top_score", score=score_label(score), value=_number(item["score"])))
            params = heads_query(model_key, item["text"], kind, layer, head, lang)
            st.button(
                t("atlas.open_short"),
                help=t("atlas.open_on_heads"),
                key=f"atlas_open_{i}",
                icon=":material/open_in_new:",
                on_click=go_to_heads,
                args=(params,),
            )
    st.caption(t("atlas.top_caption", k=len(top), score=score_label(score)))
