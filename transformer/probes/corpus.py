"""How good a natural translator is: BLEU and chrF on the held-out corpus, and a dictionary check of its attention.

Quality is measured with the field's tool, `sacrebleu` (Chinese output with its `zh` tokenizer, which
counts characters), against the held-out sentences' references: BLEU and chrF against the first reference
(the standard single-reference figure), and BLEU against all of a sentence's Tatoeba translations (a fairer
measure for a sentence that has several). Greedy decoding, as the app runs the model.

Cross-attention is checked against CC-CEDICT (`transformer.tasks.cedict`): for every token the decoder
writes of a held-out reference (teacher-forced), the source tokens that are a dictionary translation of it;
a head scores the fraction of such tokens whose arg-max source position is one of them. Only tokens with at
least one dictionary match in the source count. `sacrebleu` and the dictionary come with the re-training
extra (`requirements-data.txt`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transformer.storage.checkpoint import ModelBundle
from transformer.tasks.base import Example
from transformer.tasks.cedict import covering_glosses, lemmas
from transformer.text.reading import reader as text_reader
from transformer.text.tokenizer import WORD_START, Tokenizer, word_groups
from transformer.training.evaluate import best_head, cross_attention_alignment, greedy_completions

ALIGNMENT_N = 300  # held-out pairs the dictionary check reads


@dataclass(frozen=True)
class Quality:
    bleu: float  # against the first reference
    chrf: float  # against the first reference
    bleu_all_references: float
    n: int  # held-out source sentences
    references: int  # references in all


def translate(bundle: ModelBundle, sources: Sequence[str]) -> list[str]:
    """Greedy translations of `sources` (batched, in order)."""
    examples = [Example(s, "", None) for s in sources]
    return [bundle.target_tokenizer.decode(got) for got, _ in greedy_completions(bundle, examples)]


def quality(bundle: ModelBundle, task: Any, n: int | None = None) -> Quality:
    """BLEU and chrF of greedy translations of the task's held-out sources (all of them, or the first `n`)."""
    import sacrebleu

    sources = [e.source for e in task.examples(n if n is not None else 10**9, "heldout", seed=12345)]
    hypotheses = translate(bundle, sources)
    references = [task.references(s) for s in sources]
    most = max(len(r) for r in references)
    streams = [[r[i] if i < len(r) else None for r in references] for i in range(most)]
    tokenize = "zh" if task.direction == "en-zh" else "13a"
    first = [r[0] for r in references]
    return Quality(
        bleu=round(sacrebleu.corpus_bleu(hypotheses, [first], tokenize=tokenize).score, 2),
        chrf=round(sacrebleu.corpus_chrf(hypotheses, [first]).score, 2),
        bleu_all_references=round(sacrebleu.corpus_bleu(hypotheses, streams, tokenize=tokenize).score, 2),
        n=len(sources),
        references=sum(len(r) for r in references),
    )


def _english_words(tokenizer: Tokenizer, text: str) -> list[str]:
    """The word each token of `text` belongs to (pieces of one word share it), token by token."""
    symbols = tokenizer.tokenize(text)
    words = [""] * len(symbols)
    for group in word_groups(symbols):
        word = "".join(symbols[i].removeprefix(WORD_START) for i in group)
        for i in group:
            words[i] = word
    return words


def dictionary_example(bundle: ModelBundle, task: Any, source: str, target: str) -> Example:
    """`source` → `target` with `alignment[j]` the source token positions that translate target token j."""
    reader = text_reader(bundle)
    if task.direction == "en-zh":
        english = [lemmas(w) for w in _english_words(reader, source)]
        chinese = "".join(bundle.target_tokenizer.tokenize(target))
        by_char = [covering_glosses(chinese, j) for j in range(len(chinese))]
        sets = [frozenset(i for i, forms in enumerate(english) if forms & glossed) for glossed in by_char]
    else:
        chinese = "".join(reader.tokenize(source))
        english = [lemmas(w) for w in _english_words(bundle.target_tokenizer, target)]
        by_char = [covering_glosses(chinese, i) for i in range(len(chinese))]
        sets = [frozenset(i for i, glossed in enumerate(by_char) if forms & glossed) for forms in english]
    return Example(source, target, tuple(s or None for s in sets))


def dictionary_alignment(bundle: ModelBundle, task: Any, n: int = ALIGNMENT_N) -> tuple[dict[str, float], int]:
    """Per cross-attention head, how often its arg-max reads a dictionary translation of the token written; and
    how many written tokens had one."""
    examples = [dictionary_example(bundle, task, e.source, e.target) for e in task.examples(n, "heldout", seed=7)]
    counted = sum(1 for e in examples for s in e.alignment or () if s)
    return cross_attention_alignment(bundle, examples), counted


def probe_dictionary_alignment(bundle: ModelBundle, task: Any, source: str, target: str) -> dict[str, Any]:
    """The film probe's dictionary alignment, as a card stores it: per target token, the source positions that
    translate it (the training film's head scores are measured against it; real pairs come with no alignment)."""
    example = dictionary_example(bundle, task, source, target)
    return {"source": source, "sources": [sorted(s) if s else [] for s in example.alignment or ()]}


def corpus_report(bundle: ModelBundle, task: Any) -> tuple[dict[str, Any], dict[str, float]]:
    """The card's attention facts and quality metrics for a corpus task (`transformer.cli.train.write_model`)."""
    measured = quality(bundle, task)
    scores, counted = dictionary_alignment(bundle, task)
    head, score = best_head(scores)
    attention = {  # a decoder-only model reads its prompt through self-attention: its head is a prompt head
        "best_cross_attention_head" if bundle.config.is_encoder_decoder else "best_prompt_attention_head": head,
        "alignment_argmax_match": round(score, 4),
        "n_examples": ALIGNMENT_N,
        "n_tokens": counted,
        "gold_alignment": "CC-CEDICT: the source tokens that are a dictionary translation of the token written",
    }
    metrics = {
        "heldout_bleu": measured.bleu,
        "heldout_chrf": measured.chrf,
        "heldout_bleu_all_references": measured.bleu_all_references,
        "n_bleu": measured.n,
        "n_references": measured.references,
    }
    return attention, metrics
