"""Turning task examples into padded batches, and measuring a model on them.

The batch convention (source + <eos>, <bos> + target, target + <eos>, padded with <pad>) is
`transformer.text.batch.Batch`, shared with the app's runs.
A decoder-only model reads one sequence `<bos> prompt suffix target [<eos>]` (`transformer.text.prompt`);
its labels are <pad> (no loss) on the prompt unless its format says otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from hook_names import act_name, head_label
from transformer.engine.decoding import greedy_decode
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle
from transformer.text.batch import Batch, pad_batch
from transformer.text.prompt import PromptFormat, lm_sequence, prompt_format, prompt_row
from transformer.text.reading import reader as text_reader
from transformer.text.rows import decoder_row, label_row
from transformer.text.tokenizer import EOS_ID, PAD_ID, Tokenizer


def target_symbols(tokenizer: Tokenizer, text: str) -> list[str]:
    """A target text's symbols. Word-level targets are split on spaces only (the tasks' format),
    so a word the source regex would split (an apostrophe, a hyphen) stays one token."""
    return text.split() if tokenizer.level == "word" else tokenizer.tokenize(text)


def target_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    return tokenizer.ids(target_symbols(tokenizer, text))


def make_batch(bundle: ModelBundle, examples: Sequence[Any]) -> Batch:
    """Examples with `.source` and `.target` texts → padded id tensors."""
    fmt = prompt_format(bundle)
    if fmt is not None:
        return _lm_batch(bundle, fmt, examples)
    source = text_reader(bundle)
    srcs = [source.encode(e.source) for e in examples]
    tgts = [target_ids(bundle.target_tokenizer, e.target) for e in examples]
    return Batch.from_pairs(srcs, tgts, PAD_ID)


def _lm_batch(bundle: ModelBundle, fmt: PromptFormat, examples: Sequence[Any]) -> Batch:
    tok = bundle.target_tokenizer
    rows = [lm_sequence(fmt, tok, tok.tokenize(e.source), target_symbols(tok, e.target)) for e in examples]
    return Batch(None, pad_batch([r[0] for r in rows], PAD_ID), pad_batch([r[1] for r in rows], PAD_ID), PAD_ID)


def prompt_prefix(bundle: ModelBundle, fmt: PromptFormat, source: str) -> list[int]:
    """A decoder-only model's input before it completes `source`: <bos> + prompt + suffix."""
    tok = bundle.target_tokenizer
    return prompt_row(tok, tok.tokenize(source), fmt)


@dataclass(frozen=True)
class EvalResult:
    exact_match: float  # fraction of examples whose greedy output equals the target exactly
    token_accuracy: float  # fraction of target tokens (and the final <eos>) right at their position
    n: int
    failures: tuple[tuple[str, str, str], ...]  # up to 10 (source, expected, got)

    def as_metrics(self) -> dict[str, float | int]:
        return {
            "heldout_exact_match": round(self.exact_match, 4),
            "heldout_token_accuracy": round(self.token_accuracy, 4),
            "n_heldout": self.n,
        }


@torch.no_grad()
def evaluate(bundle: ModelBundle, examples: Sequence[Any], batch_size: int = 250) -> EvalResult:
    """Greedy-decode every example (in batches, `greedy_completions`) and compare with its target."""
    model = bundle.model
    was_training = model.training
    model.eval()
    exact = right = total = 0
    failures: list[tuple[str, str, str]] = []
    try:
        completions = greedy_completions(bundle, examples, batch_size)
    finally:
        model.train(was_training)
    for example, (got, want) in zip(examples, completions, strict=True):
        right += sum(g == w for g, w in zip(got, want, strict=False))
        total += len(want)
        if got == want:
            exact += 1
        elif len(failures) < 10:
            failures.append((example.source, example.target, bundle.target_tokenizer.decode(got)))
    n = len(examples)
    return EvalResult(exact / max(n, 1), right / max(total, 1), n, tuple(failures))


@torch.no_grad()
def greedy_completions(bundle: ModelBundle, examples: Sequence[Any], batch_size: int = 250) -> list[tuple[list[int], list[int]]]:
    """(output, right output) ids of every example, in the order given: what `evaluate` compares.

    The output is the greedy completion (after a decoder-only model's prompt) up to and including its
    <eos>; the right output is the target's ids + <eos>. A model whose format ends without <eos>
    (induction: an endless continuation) is compared on as many tokens as the target has.
    Runs under whatever interventions are active on the model (`transformer.probes.importance` ablates heads).
    """
    fmt = prompt_format(bundle)
    out: list[tuple[list[int], list[int]]] = [([], [])] * len(examples)
    for indices, batch, ys in _greedy_batches(bundle, fmt, examples, batch_size):
        for i, row, labels in zip(indices, ys.tolist(), batch.tgt_out.tolist(), strict=True):
            want = [t for t in labels if t != PAD_ID]  # target ids + <eos>
            if fmt is not None:  # a decoder-only model's labels: (prompt tokens), then target ids [+ <eos>]
                want = target_ids(bundle.target_tokenizer, examples[i].target)
                want = label_row(want) if fmt.end_with_eos else want
                row = row if fmt.end_with_eos else row[: len(want)]
            out[i] = (row[: row.index(EOS_ID) + 1] if EOS_ID in row else row, want)
    return out


def _greedy_batches(
    bundle: ModelBundle, fmt: PromptFormat | None, examples: Sequence[Any], batch_size: int
) -> Iterator[tuple[list[int], Batch, Tensor]]:
    """(indices into `examples`, their batch, greedy output ids after the prompt) in batches sorted by source length.

    A decoder-only batch holds prompts of one length only: the prompt is the decoder's own input, and
    padding inside it would shift the positions of the completion.
    """
    model = bundle.model
    if fmt is None:
        ordered = sorted(range(len(examples)), key=lambda i: len(examples[i].source))
        chunks = [ordered[i : i + batch_size] for i in range(0, len(ordered), batch_size)]
    else:
        by_length: dict[int, list[int]] = {}
        for i, example in enumerate(examples):
            by_length.setdefault(len(prompt_prefix(bundle, fmt, example.source)), []).append(i)
        chunks = [group[i : i + batch_size] for _, group in sorted(by_length.items()) for i in range(0, len(group), batch_size)]
    for indices in chunks:
        chunk = [examples[i] for i in indices]
        batch = make_batch(bundle, chunk)
        if fmt is None:
            prefix = torch.tensor([decoder_row([])] * len(chunk))  # (B, 1): <bos>
        else:
            prefix = torch.tensor([prompt_prefix(bundle, fmt, e.source) for e in chunk])  # (B, Tp)
        longest = max(len(target_symbols(bundle.target_tokenizer, e.target)) for e in chunk)
        budget = min(longest + 9, model.config.max_len - prefix.shape[1])
        ys = greedy_decode(model, batch.src, prefix, budget)[:, prefix.shape[1] :]  # (B, n)
        yield indices, batch, ys


def alignment_sets(example: Any) -> dict[int, set[int]]:
    """The example's alignment as target position → set of source positions.

    The tasks give `alignment[j]` = the source index target symbol j comes from, or None; a dictionary check
    (`transformer.probes.corpus`) gives the set of source positions that translate it.
    """
    sets = {j: s for j, s in enumerate(example.alignment or ()) if s is not None}
    return {j: {int(i) for i in s} if isinstance(s, frozenset) else {int(s)} for j, s in sets.items()}


def is_reordered(example: Any) -> bool:
    """True if the alignment crosses: some later target word comes from an earlier source word."""
    pairs = sorted((t, s) for t, ss in alignment_sets(example).items() for s in ss)
    return any(s2 < s1 for (t1, s1), (t2, s2) in itertools.pairwise(pairs) if t2 > t1)


@torch.no_grad()
def cross_attention_alignment(bundle: ModelBundle, examples: Sequence[Any], batch_size: int = 100) -> dict[str, float]:
    """For each cross-attention head, the fraction of aligned target tokens whose arg-max source
    position (the decoder query that predicts that token) is one of the token's aligned sources.

    Runs teacher-forced on the gold targets. Returns {"decoder.layers.L.cross_attn head h": score}.
    A decoder-only model has no cross-attention: its self-attention heads are scored instead, with the
    query that predicts target token j (the suffix's last position + j) and the prompt word i at
    position 1 + i (after <bos>): {"decoder.layers.L.self_attn head h": score}.
    """
    model = bundle.model
    was_training = model.training
    model.eval()
    fmt = prompt_format(bundle)
    kind = "cross" if fmt is None else "decoder"  # a decoder-only model reads its prompt by self-attention
    n_layers, n_heads = model.config.n_layers, model.config.n_heads
    names = [act_name(kind, layer, "pattern") for layer in range(n_layers)]
    hits = torch.zeros(n_layers, n_heads)
    counted = 0
    try:
        for start in range(0, len(examples), batch_size):
            chunk = list(examples[start : start + batch_size])
            batch = make_batch(bundle, chunk)
            with capture(model, names) as cache:
                model(batch.src, batch.tgt_in)
            argmax = torch.stack([cache[name].argmax(dim=-1) for name in names], dim=1)  # (B, L, H, Tt)
            for b, example in enumerate(chunk):
                query0, key0 = (0, 0) if fmt is None else (len(prompt_prefix(bundle, fmt, example.source)) - 1, 1)
                for t, sources in alignment_sets(example).items():
                    if query0 + t >= argmax.shape[-1]:
                        continue
                    picked = argmax[b, :, :, query0 + t]  # (L, H)
                    hits += sum((picked == key0 + s).float() for s in sources).clamp(max=1)
                    counted += 1
    finally:
        model.train(was_training)
    scores = (hits / max(counted, 1)).tolist()
    return {head_label(kind, layer, h): scores[layer][h] for layer in range(n_layers) for h in range(n_heads)}


def best_head(scores: dict[str, float]) -> tuple[str, float]:
    name = max(scores, key=scores.__getitem__)
    return name, scores[name]
