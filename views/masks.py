"""Masks: a padded batch, its padding / causal / combined / cross masks, one head's scores before
and after masking and after softmax, the causal mask switched off (generation and teacher forcing,
side by side), and per-call interventions (hidden tokens, an ablated head) with the output before
and after.

Where the numbers come from: `runs.masks_page`, one call per section whose widgets depend on the
run above it (`ui.caches.get_masks_batch`, `get_masks_sentence`, `get_masks_causal`; the module
docstring says why these phases), and the intervention run, `ui.caches.get_trace`.
"""

import streamlit as st

from runs.causal_claims import training_claim
from runs.masks_claims import batch_claim, masks_claim
from runs.text_run import attention_kinds
from ui.batch import sentence_batch
from ui.caches import get_masks_batch, get_masks_causal, get_masks_sentence, get_trace
from ui.head_picker import head_picker, kind_name
from ui.i18n import labels_of, t
from ui.labels import relabel_when_changed
from ui.page import section, start_page
from ui.pages.masks.ablation import ablation_default
from ui.pages.masks.controls import causal_controls, intervention_controls
from ui.pages.masks.view import compare_patterns, mask_matrices, rows_note, show_batch, show_causal, show_outputs, show_steps
from ui.prose import prose
from viz.masked_scores import score_hook_names

ctx = start_page("masks", text="none")
batch, area, beside = sentence_batch(ctx.bundle)
if not batch.ok:
    if not batch.sentences:
        st.info(t("masks.need_text"))
    st.stop()

config = ctx.bundle.config
resent = relabel_when_changed(batch.sentences, ("row", "causal_scope", "blocked", "block_in"))

# 1. The padded batch: every sentence's real run (decoding only: no activations are kept).
padded = get_masks_batch(ctx.model.key, batch.sentences)
view = padded.view
with area:  # under the text area; the batch itself beside it, on the first screen
    section(1, "masks.batch_header")
    prose(t(batch_claim(view.has_source, view.has_decoder).key))
with beside:
    show_batch(view)

# 2. The masks of one sentence.
section(2, "masks.masks_header")
prose(t(masks_claim(view.has_source, view.has_decoder).key))
row = st.selectbox(
    t("masks.row"),
    list(range(view.size)),
    index=0 if "row" in resent else view.most_padded,  # a re-sent value takes no default
    key="row",
    bind="query-params",
    format_func=labels_of({i: f"{i + 1}: {s}" for i, s in enumerate(batch.sentences)}),
)
if view.has_decoder:
    rows_note(view, row)
mask_matrices(view, row)

# 3. One head: scores → masked scores → softmax, for the chosen sentence as the padded batch runs it.
section(3, "masks.scores_header")
prose(t("masks.scores_explain"))
kind, layer, head = head_picker(attention_kinds(ctx.bundle), config.n_layers, config.n_heads)
names = score_hook_names(kind, layer)
chosen = get_masks_sentence(ctx.model.key, padded, batch.sentences, row, names)
show_steps(chosen.scores, kind, layer, head)
if kind != "encoder":
    rows_note(view, row)
sentence, before = batch.sentences[row], chosen.before
if config.is_encoder_only:  # the padding mask is all an encoder has: the causal and decoder experiments end here
    st.info(t("masks.encoder_only_end"), icon=":material/info:")
    st.stop()

# 4. The causal mask switched off: generation (nothing later to see) and teacher forcing (everything).
section(4, "masks.causal_header")
prose(t("masks.causal_explain"))
off, lifted = causal_controls(layer)
if not off:
    st.info(t("masks.causal_off_hint"))
else:
    target = chosen.target
    if target is None:
        st.info(t("masks.causal_no_target"))
    else:
        causal = get_masks_causal(ctx.model.key, sentence, target.text, lifted)
        why = training_claim(ctx.bundle, causal.summary)
        show_causal(causal.experiment, target, causal.summary, why, layer, head)

# 5. Interventions, for this call only; the shared model is never changed.
section(5, "masks.interventions_header")
prose(t("masks.interventions_explain"))
choice = intervention_controls(
    ctx.bundle,
    chosen.hideable,
    list(chosen.heads),
    lambda: ablation_default(ctx.model.key, sentence, chosen.baseline),
    (kind, layer, head),
    chosen.hideable_hex,
)
specs = choice.specs(config.n_layers)
if not specs:
    st.info(t("masks.none_active"))
    st.stop()
try:
    after = get_trace(ctx.model.key, sentence, names=names, interventions=specs)
except ValueError as err:  # e.g. an intervention the model rejects; never a traceback
    st.error(t("masks.intervention_failed"))
    st.code(str(err), language=None)
    st.stop()
show_outputs(before, after)
if choice.ablate is None and not choice.touches(kind):
    st.info(t("masks.pick_touched", kind=kind_name(kind)))
elif choice.ablate is not None and not choice.touches(kind):
    st.caption(t("masks.ablate_note"))
compare_patterns(before, after, kind, layer, head)
