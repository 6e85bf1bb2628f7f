"""Heads across many sentences: one head over the corpus (mean and spread of each score, its top sentences drawn
small), the head finder (every layer × head, filtered and sorted), and the map of queries and keys.

Where the numbers come from: the model's atlas (`ui.atlas_data.get_atlas` → `runs.atlas_page`: a shipped
model's `atlas.json`, else computed once on its held-out set or the bundled sentence set and cached on disk), the
page's cached runs for the small patterns, and `runs.qk_map` for the map. The view, the head and the finder's
filter are in the URL (`?atlas_view=finder&f_score=previous_token&f_min=0.6&f_first=1&f_last=2`).
"""

import streamlit as st

from runs.atlas_page import cache_dir
from runs.text_run import attention_kinds
from ui.atlas_data import get_atlas
from ui.head_picker import kind_picker, layer_head_picker
from ui.i18n import labels_of, t
from ui.page import start_page
from ui.pages.atlas.finder import finder_section
from ui.pages.atlas.head import follow_heads_link, head_section
from ui.pages.atlas.qk import qk_section
from ui.safe import md_literal
from ui.url_choice import seed_choice, write_choice

VIEW_KEY = "atlas_view"
VIEWS = ("head", "finder", "map")
KEYS = ("a_kind", "a_layer", "a_head")  # this page's own head picker (the heads page's keep their own head)

follow_heads_link()
ctx = start_page("atlas", text="optional")
bundle = ctx.bundle
atlas, live = get_atlas(ctx.model.key)
if atlas is None:
    st.stop()
if atlas.source == "bundled":  # said first: every number below is of the bundled set, not the model's own
    where = md_literal(cache_dir(), code=True)
    st.info(t("atlas.source_bundled", n=atlas.n_sentences, where=where), icon=":material/library_books:")

seed_choice(VIEW_KEY, VIEWS, VIEWS[0])
view = st.segmented_control(
    t("atlas.view"), VIEWS, key=VIEW_KEY, format_func=labels_of({v: t(f"atlas.view_{v}") for v in VIEWS}), required=True
)
write_choice(VIEW_KEY, view, VIEWS[0])
kinds = tuple(attention_kinds(bundle))
if view == "finder":
    finder_section(ctx.model.key, atlas, bundle.config.n_layers)
else:
    cols = st.columns(4 if view == "head" else 3)
    kind = kind_picker(cols[0], kinds, default=kinds[0], section="atlas", key=KEYS[0])
    layer, head = layer_head_picker(cols[1:3], bundle.config.n_layers, bundle.config.n_heads, section="atlas", keys=KEYS[1:])
    if view == "head":
        head_section(ctx.model.key, atlas, kind, layer, head, cols[3])
    else:
        qk_section(ctx.model.key, atlas.texts, kind, layer, head, ctx.text)
if atlas.source != "bundled":
    st.caption(t("atlas.source_heldout_live" if live else "atlas.source_heldout", n=atlas.n_sentences))
