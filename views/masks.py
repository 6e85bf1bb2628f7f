"""Masks: a padded batch, its padding / causal / combined / cross masks, one head's scores before
and after masking and after softmax, and per-call interventions (causal mask off, hidden tokens,
an ablated head) with the model's output before and after."""

import streamlit as st

from ui.batch import get_batch_row, mask_batch, sentence_batch
from ui.i18n import t
from ui.mask_controls import head_picker, intervention_controls, kind_name, labels_of, relabel_when_changed
from ui.mask_view import compare_patterns, mask_matrices, show_batch, show_outputs, show_steps
from ui.models import get_trace
from ui.page import start_page
from viz.masked_scores import score_hook_names

ctx = start_page("masks", needs_text=False)
if ctx is None:
    st.stop()
batch = sentence_batch(ctx.bundle)
if not batch.ok:
    if not batch.sentences:
        st.info(t("masks.need_text"))
    st.stop()

relabel_when_changed(batch.sentences)

# 1. The padded batch: every sentence's real run (decoding only: no activations are kept).
traces = [get_trace(ctx.model.key, sentence, names=()) for sentence in batch.sentences]
view = mask_batch(ctx.bundle, traces)
st.header(t("masks.batch_header"))
st.markdown(t("masks.batch_explain" if view.has_source else "masks.batch_explain_decoder"))
show_batch(view)

# 2. The masks of one sentence.
st.header(t("masks.masks_header"))
st.markdown(t("masks.masks_explain"))
row = st.selectbox(t("masks.row"), list(range(view.size)), index=view.most_padded, key="row", bind="query-params",
                   format_func=labels_of({i: f"{i + 1}: {s}" for i, s in enumerate(batch.sentences)}))
mask_matrices(view, row)

# 3. One head: scores → masked scores → softmax, for the chosen sentence as the padded batch runs it.
st.header(t("masks.scores_header"))
st.markdown(t("masks.scores_explain"))
kind, layer, head = head_picker(ctx.bundle)
names = score_hook_names(kind, layer)
show_steps(get_batch_row(ctx.model.key, batch.sentences, row, names), kind, layer, head)

# 4. Interventions, for this call only; the shared model is never changed.
before = get_trace(ctx.model.key, batch.sentences[row], names=names)
st.header(t("masks.interventions_header"))
st.markdown(t("masks.interventions_explain"))
if ctx.bundle.config.is_encoder_decoder:
    hideable = before.src_tokens
elif before.teacher_forced:  # decoder-only reading the text: all of it is the prompt
    hideable = before.tgt_tokens
else:  # decoder-only: the prompt (<bos> + the text), not the generated tokens
    hideable = before.tgt_tokens[: len(before.tgt_tokens) - len(before.output_tokens)]
choice = intervention_controls(ctx.bundle, kind, layer, head, hideable)
specs = choice.specs(ctx.bundle.config.n_layers)
if not specs:
    st.info(t("masks.none_active"))
    st.stop()
try:
    after = get_trace(ctx.model.key, batch.sentences[row], names=names, interventions=specs)
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
