"""A batch of 2–4 sentences for the Masks and LayerNorm pages: checked, padded, its masks, its rows.

Padding only exists in a batch, so these pages need several sentences of different lengths. The
first is the text every page shares; the rest are lines typed in a text area, each checked like
the main text (`runs.validation.check_text`). The padded batch is built from the sentences' real
runs (their token ids, kept by `TraceData`) with the one batch convention of `transformer.text.batch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch
from torch import Tensor

from runs.validation import TextCheck, check_text
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import Task, presentable
from transformer.text.batch import batch_masks, pad_batch
from transformer.text.tokenizer import PAD, Tokenizer
from viz.masks import MaskBatch, padded_tokens
from viz.trace import TraceData

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
    """Check sentence 1 (already checked text or None) and each line of `more`."""
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


DEFAULT_SAMPLE = 64  # sentences drawn (seeded) from a word task's held-out split to pick the default lines from


def default_more(example: str, tokenizer: Tokenizer, task: Task | None = None, chosen: Sequence[str] = ()) -> str:
    """Two sentences shorter than the example (about 1/2 and 3/4 of its length), made only of symbols
    the model knows, each with a right answer in the model's task; or the card's own `chosen` lines (its
    "batch": a natural translator's held-out lines it was measured to translate as its corpus does, so the
    page's own example is never a mistranslation).

    A word task's grammar is small: a prefix of the example ("i read a") is usually no sentence of
    it, so its translation would be an invention. Those lines come from the task's own sampler
    instead (held-out split, fixed seed: the same lines every time, never trained on). A character
    task (or no task) takes prefixes of the example, which have an answer for reverse or copy; where
    they have none (an induction sequence must repeat), the sampler again.
    """
    if chosen:
        return "\n".join(str(line) for line in chosen)
    symbols = tokenizer.tokenize(example)
    wanted = [n for n in dict.fromkeys((len(symbols) // 2, 3 * len(symbols) // 4)) if 0 < n < len(symbols)]
    lines: list[str] = []
    if task is None or task.level != "word":
        lines = [tokenizer.detokenize(symbols[:n]).strip() for n in wanted]
        if task is not None:
            lines = [line for line in lines if task.reference(line) is not None]
    if task is not None and not lines:  # a grammar, or a character task whose prefixes have no answer (induction)
        pool = [ex.source for ex in task.examples(DEFAULT_SAMPLE, "heldout", seed=0) if presentable(ex)]
        shorter = [s for s in pool if len(tokenizer.tokenize(s)) < len(symbols)] or pool
        lines = _closest_lengths(shorter, wanted or [1], tokenizer, exclude=len(symbols))
    return "\n".join(line for line in lines if line) or example


def _closest_lengths(pool: Sequence[str], lengths: Sequence[int], tokenizer: Tokenizer, exclude: int) -> list[str]:
    """For each wanted length, the first sentence of `pool` whose token count is closest to it,
    never the example's own length, each length used once (so the batch shows padding)."""
    sized = [(len(tokenizer.tokenize(s)), s) for s in pool]
    used, out = {exclude}, []
    for want in sorted(lengths):
        free = [(abs(n - want), i) for i, (n, _) in enumerate(sized) if n not in used]
        if free:
            _, best = min(free)
            used.add(sized[best][0])
            out.append(sized[best][1])
    return out


def padded_ids(bundle: ModelBundle, traces: Sequence[TraceData]) -> tuple[Tensor | None, Tensor]:
    """The sentences' real runs as one padded batch: source = tokens + <eos> (B, Ts) or None for a
    decoder-only model, decoder input = <bos> + output (B, Tt)."""
    pad = bundle.config.pad_id
    tgt = pad_batch([tr.tgt_ids for tr in traces], pad)  # (B, Tt); (B, 0) for an encoder-only model
    src = pad_batch([tr.src_ids for tr in traces], pad) if bundle.config.architecture != "decoder-only" else None  # (B, Ts)
    return src, tgt


def mask_batch(bundle: ModelBundle, traces: Sequence[TraceData]) -> MaskBatch:
    """The padded batch of the sentences' real runs and its masks, built by the model's own mask functions.

    `tgt_next` holds what each decoder position writes (the runs' `next_tokens`, padded like the
    input), so every figure can name a decoder query row by its output: row "我" writes "今天".
    """
    src, tgt = padded_ids(bundle, traces)
    masks = batch_masks(tgt, bundle.config.pad_id, src)
    arrays = {name: None if mask is None else mask.numpy() for name, mask in masks._asdict().items()}
    return MaskBatch(
        src_tokens=padded_tokens([tr.src_tokens for tr in traces], PAD) if src is not None else (),
        tgt_tokens=padded_tokens([tr.tgt_tokens for tr in traces], PAD),
        tgt_next=padded_tokens([tr.next_tokens for tr in traces], PAD),
        # raw bytes beside the padded labels, for the hovers (a <pad> is a special, with none)
        src_hex=padded_tokens([tr.src_hex for tr in traces], "") if src is not None else (),
        tgt_hex=padded_tokens([tr.tgt_hex for tr in traces], ""),
        next_hex=padded_tokens([tr.next_hex for tr in traces], ""),
        **arrays,
    )


def batch_row(bundle: ModelBundle, traces: Sequence[TraceData], row: int, names: Sequence[str]) -> TraceData:
    """Sentence `row` as one teacher-forced pass of the whole padded batch records it.

    A sentence run alone is a batch of one and has no padding, so its scores would never show the
    padding mask. In the batch its row is padded to the longest sentence: the <pad> keys of its
    encoder and cross (and decoder) scores are blocked (−∞) and get weight 0, while its real cells
    hold the same numbers as the run alone (padding changes nothing the mask lets through).
    """
    src, tgt = padded_ids(bundle, traces)
    with torch.no_grad(), capture(bundle.model, names) as cache:
        bundle.model(src, None if bundle.config.is_encoder_only else tgt)
    # batch dimension kept; a copy, so a cached row does not keep the whole batch alive
    arrays = {name: array[row : row + 1].copy() for name, array in cache.numpy().items()}
    for array in arrays.values():
        array.setflags(write=False)
    src_tokens = padded_tokens([tr.src_tokens for tr in traces], PAD)[row] if src is not None else ()
    return replace(
        traces[row],
        arrays=arrays,
        src_tokens=src_tokens,
        tgt_tokens=padded_tokens([tr.tgt_tokens for tr in traces], PAD)[row],
        next_tokens=padded_tokens([tr.next_tokens for tr in traces], PAD)[row],
        src_ids=tuple(src[row].tolist()) if src is not None else (),
        tgt_ids=tuple(tgt[row].tolist()),
        # raw bytes beside the padded labels: a <pad> is a special, with none
        src_hex=padded_tokens([tr.src_hex for tr in traces], "")[row] if src is not None else (),
        tgt_hex=padded_tokens([tr.tgt_hex for tr in traces], "")[row],
        next_hex=padded_tokens([tr.next_hex for tr in traces], "")[row],
    )
