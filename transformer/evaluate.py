"""Turning task examples into padded batches, and measuring a model on them.

The batch convention (source + <eos>, <bos> + target, target + <eos>, padded with <pad>) is
`transformer.batch.Batch`, shared with the app's runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from transformer.batch import Batch
from transformer.checkpoint import ModelBundle
from transformer.decoding import greedy_decode
from transformer.hook_names import act_name, attn_module
from transformer.hooks import capture
from transformer.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Tokenizer


def target_symbols(tokenizer: Tokenizer, text: str) -> list[str]:
    """A target text's symbols. Word-level targets are split on spaces only (the tasks' format),
    so a word the source regex would split (an apostrophe, a hyphen) stays one token."""
    return text.split() if tokenizer.level == "word" else tokenizer.tokenize(text)


def target_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    return [tokenizer.index.get(s, UNK_ID) for s in target_symbols(tokenizer, text)]


def make_batch(bundle: ModelBundle, examples: Sequence[Any]) -> Batch:
    """Examples with `.source` and `.target` texts → padded id tensors."""
    source = bundle.source_tokenizer or bundle.target_tokenizer
    srcs = [source.encode(e.source) for e in examples]
    tgts = [target_ids(bundle.target_tokenizer, e.target) for e in examples]
    return Batch.from_pairs(srcs, tgts, PAD_ID)


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
    """Greedy-decode every example (in batches) and compare with its target.

    Examples are sorted by source length before batching so little time goes to padding.
    """
    model = bundle.model
    was_training = model.training
    model.eval()
    exact = right = total = 0
    failures: list[tuple[str, str, str]] = []
    ordered = sorted(examples, key=lambda e: len(e.source))
    try:
        for start in range(0, len(ordered), batch_size):
            chunk = ordered[start : start + batch_size]
            batch = make_batch(bundle, chunk)
            prefix = torch.full((len(chunk), 1), BOS_ID, dtype=torch.long)  # (B, 1)
            budget = min(batch.tgt_out.shape[1] + 8, model.config.max_len - 1)
            ys = greedy_decode(model, batch.src, prefix, budget)[:, 1:]  # (B, n)
            for row, example, labels in zip(ys.tolist(), chunk, batch.tgt_out.tolist(), strict=True):
                want = [t for t in labels if t != PAD_ID]  # target ids + <eos>
                got = row[: row.index(EOS_ID) + 1] if EOS_ID in row else row
                right += sum(g == w for g, w in zip(got, want, strict=False))
                total += len(want)
                if got == want:
                    exact += 1
                elif len(failures) < 10:
                    failures.append((example.source, example.target, bundle.target_tokenizer.decode(got)))
    finally:
        model.train(was_training)
    n = len(examples)
    return EvalResult(exact / max(n, 1), right / max(total, 1), n, tuple(failures))


def alignment_sets(example: Any) -> dict[int, set[int]]:
    """The example's alignment as target position → set of source positions.

    The tasks give `alignment[j]` = the source index target symbol j comes from, or None.
    """
    return {j: {int(s)} for j, s in enumerate(example.alignment or ()) if s is not None}


def is_reordered(example: Any) -> bool:
    """True if the alignment crosses: some later target word comes from an earlier source word."""
    pairs = sorted((t, s) for t, ss in alignment_sets(example).items() for s in ss)
    return any(s2 < s1 for (t1, s1), (t2, s2) in itertools.pairwise(pairs) if t2 > t1)


@torch.no_grad()
def cross_attention_alignment(bundle: ModelBundle, examples: Sequence[Any], batch_size: int = 100) -> dict[str, float]:
    """For each cross-attention head, the fraction of aligned target tokens whose arg-max source
    position (the decoder query that predicts that token) is one of the token's aligned sources.

    Runs teacher-forced on the gold targets. Returns {"decoder.layers.L.cross_attn head h": score}.
    """
    model = bundle.model
    was_training = model.training
    model.eval()
    n_layers, n_heads = model.config.n_layers, model.config.n_heads
    names = [act_name("cross", layer, "pattern") for layer in range(n_layers)]
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
                for t, sources in alignment_sets(example).items():
                    if t >= argmax.shape[-1]:
                        continue
                    picked = argmax[b, :, :, t]  # (L, H)
                    hits += sum((picked == s).float() for s in sources).clamp(max=1)
                    counted += 1
    finally:
        model.train(was_training)
    scores = (hits / max(counted, 1)).tolist()
    return {f"{attn_module('cross', layer)} head {h}": scores[layer][h] for layer in range(n_layers) for h in range(n_heads)}


def best_head(scores: dict[str, float]) -> tuple[str, float]:
    name = max(scores, key=scores.__getitem__)
    return name, scores[name]
