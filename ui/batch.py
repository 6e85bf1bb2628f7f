"""The widgets of a batch of 2–4 sentences: the shared text box is sentence 1, a text area adds 1–3 more.

The checking, padding and masks are in `runs.sentence_batch`; this file only draws the text area
(bound to the URL) and reports, per line and in the user's language, what was wrong with it.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from runs.reference import model_task
from runs.sentence_batch import MAX_SENTENCES, MIN_SENTENCES, BatchCheck, check_batch, default_more
from transformer.storage.checkpoint import ModelBundle
from transformer.text.reading import reader as text_reader
from transformer.text.reading import symbols_that_fit
from ui.i18n import t
from ui.inputs import example_text, text_box
from ui.url_values import MAX_URL_TEXT_CHARS

MORE_KEY = "more"  # session-state key and URL query parameter of the text area


def more_sentences(bundle: ModelBundle, first: str | None, label: str, help_text: str, height: int) -> BatchCheck:
    """The text area of more sentences (seeded with shorter sentences of the model's task, or prefixes
    of the example: see `runs.sentence_batch.default_more`), checked with `first`."""
    reader = text_reader(bundle)
    if MORE_KEY not in st.session_state and not st.query_params.get(MORE_KEY):
        chosen = bundle.card.get("batch") or ()
        st.session_state[MORE_KEY] = default_more(example_text(bundle), reader, model_task(bundle), chosen)
    more = st.text_area(
        label, key=MORE_KEY, bind="query-params", height=height, help=help_text, max_chars=MAX_URL_TEXT_CHARS
    )  # what a link may carry (ui.url_values)
    return check_batch(first, more or "", reader, symbols_that_fit(bundle.config))


def sentence_batch(bundle: ModelBundle) -> tuple[BatchCheck, DeltaGenerator, DeltaGenerator]:
    """Render sentence 1 (the shared text box) and, in a narrow left column, the text area of more
    sentences; report problems. Returns the batch, the left column (for what explains the batch) and
    the empty right column beside the text area, where the page draws the padded batch: typing and
    seeing the padding side by side keeps that figure on the first 1280 × 720 screen."""
    first = text_box(bundle)
    area, beside = st.columns([2, 3], gap="medium")
    with area:
        batch = more_sentences(bundle, first.text, t("masks.more_label"), t("masks.more_help"), 110)
        _report(batch)
    return batch, area, beside


def _report(batch: BatchCheck) -> None:
    report_lines(batch)
    if batch.skipped_empty:
        st.info(t("masks.empty_lines", lines=", ".join(map(str, batch.skipped_empty))))
    if batch.dropped:
        st.warning(t("masks.too_many", max=MAX_SENTENCES, n=batch.dropped))
    if not batch.ok and batch.sentences:
        st.error(t("masks.too_few", min=MIN_SENTENCES, max=MAX_SENTENCES))


def report_lines(batch: BatchCheck) -> None:
    """What was wrong with each extra sentence (numbered from 2: the text box is sentence 1): removed control
    characters, truncation with the whole input's count, unknown symbols. The Masks and LayerNorm pages share it."""
    for number, check in batch.lines:
        if check.removed_controls:
            st.info(t("masks.line_controls", n=number, k=check.removed_controls))
        if check.truncated_to is not None:
            st.warning(t("masks.line_truncated", n=number, kept=check.truncated_to, total=check.original_tokens))
        if check.unknown:
            st.warning(t("masks.line_unknown", n=number, k=len(check.unknown)))
            st.code("  ".join(check.unknown), language=None)
