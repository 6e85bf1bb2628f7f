"""A batch of 2–4 sentences: the shared text box is sentence 1, a text area adds 1–3 more.

Padding only exists in a batch, so the Masks page needs several sentences of different lengths.
The first one is the text every page shares (so a sentence typed on another page shows up here);
the rest are typed one per line, bound to the URL, and checked like the main text
(`ui.validation.check_text`), with a translated message per line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import streamlit as st
import torch
from torch import Tensor

from transformer.batch import batch_masks, pad_batch, token_ids
from transformer.checkpoint import ModelBundle
from transformer.hooks import capture
from transformer.tokenizer import PAD, Tokenizer
from ui.i18n import t
from ui.inputs import example_text, text_box
from ui.models import get_bundle, get_trace
from ui.validation import TextCheck, check_text
from viz.masks import MaskBatch, padded_tokens
from viz.trace import TraceData

MORE_KEY = "more"  # session-state key and URL query parameter of the text area
MIN_SENTENCES, MAX_SENTENCES = 2, 4


@dataclass(frozen=True)
class BatchCheck:
    """The sentences to run, and what the user should be told about the extra lines."""

    sentences: tuple[str, ...]
    lines: tuple[tuple[int, TextCheck], ...]  # (sentence number, its check) for every extra line kept
    skipped_empty: tuple[int, ...] = ()  # line numbers (1-based, in the text area) that were blank
    dropped: int = 0  # non-empty lines beyond MAX_SENTENCES

    @property
    def ok(self) -> bool:
        return len(self.sentences) >= MIN_SENTENCES


def check_batch(first: str | None, more: str, tokenizer: Tokenizer, max_tokens: int) -> BatchCheck:
    """Check sentence 1 (already checked text or None) and each line of `more` (pure: no widgets)."""
    sentences = [first] if first else []
    lines: list[tuple[int, TextCheck]] = []
    skipped: list[int] = []
    dropped = 0
    for number, line in enumerate((more or "").splitlines(), start=1):
        check = check_text(line, tokenizer, max_tokens)
        if check.empty:
            skipped.append(number)
        elif len(sentences) >= MAX_SENTENCES:
            dropped += 1
        else:
            sentences.append(check.text)  # type: ignore[arg-type]  # not empty
            lines.append((len(sentences), check))
    return BatchCheck(tuple(sentences), tuple(lines), tuple(skipped), dropped)


def default_more(example: str, tokenizer: Tokenizer) -> str:
    """Two shorter prefixes of the example (about 1/2 and 1/4 of it): sentences of different lengths
    made only of symbols the model knows."""
    symbols = tokenizer.tokenize(example)
    lengths = dict.fromkeys(n for n in (len(symbols) // 2, len(symbols) // 4) if 0 < n < len(symbols))
    lines = [tokenizer.detokenize(symbols[:n]).strip() for n in lengths]
    return "\n".join(line for line in lines if line) or example


def sentence_batch(bundle: ModelBundle) -> BatchCheck:
    """Render sentence 1 (the shared text box) and the text area of more sentences; report problems."""
    first = text_box(bundle)
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    if MORE_KEY not in st.session_state and not st.query_params.get(MORE_KEY):
        st.session_state[MORE_KEY] = default_more(example_text(bundle), reader)
    more = st.text_area(t("masks.more_label"), key=MORE_KEY, bind="query-params", height=110, help=t("masks.more_help"))
    batch = check_batch(first.text, more or "", reader, bundle.config.max_len - 1)
    _report(batch)
    return batch


def _report(batch: BatchCheck) -> None:
    for number, check in batch.lines:
        if check.removed_controls:
            st.info(t("masks.line_controls", n=number, k=check.removed_controls))
        if check.truncated_to is not None:
            st.warning(t("masks.line_truncated", n=number, kept=check.truncated_to, total=check.original_tokens))
        if check.unknown:
            st.warning(t("masks.line_unknown", n=number, k=len(check.unknown)))
            st.code("  ".join(check.unknown), language=None)
    if batch.skipped_empty:
        st.info(t("masks.empty_lines", lines=", ".join(map(str, batch.skipped_empty))))
    if batch.dropped:
        st.warning(t("masks.too_many", max=MAX_SENTENCES, n=batch.dropped))
    if not batch.ok and batch.sentences:
        st.error(t("masks.too_few", min=MIN_SENTENCES, max=MAX_SENTENCES))


def padded_ids(bundle: ModelBundle, traces: Sequence[TraceData]) -> tuple[Tensor | None, Tensor]:
    """The sentences' real runs as one padded batch: source = tokens + <eos> (B, Ts) or None for a
    decoder-only model, decoder input = <bos> + output (B, Tt)."""
    pad = bundle.config.pad_id
    tgt = pad_batch([token_ids(tr.tgt_tokens, bundle.target_tokenizer.index) for tr in traces], pad)  # (B, Tt)
    source = bundle.source_tokenizer
    src = None if source is None else pad_batch([token_ids(tr.src_tokens, source.index) for tr in traces], pad)
    return src, tgt


def mask_batch(bundle: ModelBundle, traces: Sequence[TraceData]) -> MaskBatch:
    """The padded batch of the sentences' real runs and its masks, built by the model's own mask
    functions."""
    src, tgt = padded_ids(bundle, traces)
    masks = batch_masks(tgt, bundle.config.pad_id, src)
    arrays = {name: None if mask is None else mask.numpy() for name, mask in masks._asdict().items()}
    return MaskBatch(
        src_tokens=padded_tokens([tr.src_tokens for tr in traces], PAD) if src is not None else (),
        tgt_tokens=padded_tokens([tr.tgt_tokens for tr in traces], PAD),
        **arrays,
    )


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def get_batch_row(model_key: str, sentences: tuple[str, ...], row: int, names: tuple[str, ...]) -> TraceData:
    """Sentence `row` as one teacher-forced pass of the whole padded batch records it.

    A sentence run alone is a batch of one and has no padding, so its scores would never show the
    padding mask. In the batch its row is padded to the longest sentence: the <pad> keys of its
    encoder and cross (and decoder) scores are blocked (−∞) and get weight 0, while its real cells
    hold the same numbers as the run alone (padding changes nothing the mask lets through).
    """
    bundle = get_bundle(model_key)
    traces = [get_trace(model_key, sentence, names=()) for sentence in sentences]
    src, tgt = padded_ids(bundle, traces)
    with torch.no_grad(), capture(bundle.model, names) as cache:
        bundle.model(src, tgt)
    arrays = {name: array[row : row + 1] for name, array in cache.numpy().items()}  # batch dimension kept
    for array in arrays.values():
        array.setflags(write=False)
    src_tokens = padded_tokens([tr.src_tokens for tr in traces], PAD)[row] if src is not None else ()
    return replace(traces[row], arrays=arrays, src_tokens=src_tokens,
                   tgt_tokens=padded_tokens([tr.tgt_tokens for tr in traces], PAD)[row])
