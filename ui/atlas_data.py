"""What the corpus page and the class's sentences (the lesson's class mode) read, cached: a model's atlas (stored,
cached on disk, or computed here with a progress bar), one head's pattern on a sentence, and a head's map of queries and keys."""

from __future__ import annotations

import streamlit as st

from runs import atlas_page
from runs.model_ref import is_untrained
from runs.qk_map import QKMap, qk_map
from runs.text_run import attention_names
from transformer.probes.atlas import Atlas
from ui.caches import get_bundle, get_trace
from ui.i18n import t
from ui.safe import md_literal
from viz.tokens import TokenAxis

LIVE_KEY = "atlas_live"  # session state: model key → the atlas computed (or read from the disk cache) this session


@st.cache_resource(show_spinner=False, max_entries=16)
def get_stored_atlas(model_key: str) -> Atlas | None:
    """A shipped model's `atlas.json` (read once per process), or None."""
    return atlas_page.stored_atlas(model_key)


def get_atlas(model_key: str) -> tuple[Atlas | None, bool]:
    """(the model's atlas, whether it was computed rather than shipped); computes it with a progress bar when
    neither the model nor the disk cache has it. None (after saying why) when it cannot be computed."""
    stored = get_stored_atlas(model_key)
    if stored is not None:
        return stored, False
    live: dict[str, Atlas] = st.session_state.setdefault(LIVE_KEY, {})
    if model_key in live:
        return live[model_key], True
    bundle = get_bundle(model_key)
    try:
        atlas = atlas_page.cached_atlas(bundle)
        if atlas is None:
            texts, _ = atlas_page.atlas_sentences(bundle)
            bar = st.progress(0.0, text=t("atlas.computing", n=len(texts)))

            def progress(done: int, total: int) -> None:
                bar.progress(done / max(total, 1), text=t("atlas.progress", done=done, total=total))

            atlas = atlas_page.compute_atlas(bundle, progress)
            bar.empty()
    except (ValueError, RuntimeError, OSError) as err:
        st.error(t("atlas.failed", error=md_literal(err)), icon=":material/error:")
        return None, True
    live[model_key] = atlas
    return atlas, True


def head_pattern(model_key: str, text: str, kind: str, layer: int, head: int):
    """(weights (Tq, Tk), query axis, key axis) of one head on `text`, from the page's cached run; the axes carry a
    byte-level piece's raw bytes for the hover."""
    trace = get_trace(model_key, text, names=attention_names(get_bundle(model_key)))
    queries = TokenAxis(trace.query_tokens(kind), hex=trace.query_hex(kind))
    return trace.pattern(kind, layer)[head], queries, TokenAxis(trace.key_tokens(kind), hex=trace.key_hex(kind))


@st.cache_resource(show_spinner=False, max_entries=16)
def get_qk_map(model_key: str, texts: tuple[str, ...], kind: str, layer: int, head: int, user_text: str | None) -> QKMap:
    """`runs.qk_map.qk_map`, cached per model, sentences, head and the user's sentence."""
    bundle = get_bundle(model_key)
    return qk_map(bundle, texts, kind, layer, head, user_text=user_text, generate=not is_untrained(bundle))
