"""One captured run of an encoder-only model (BERT) on a text: read once, predict every position.

An encoder-only model generates nothing: it reads <bos> + text + <eos> ([CLS] … [SEP]) in one pass,
and its output layer (the masked-LM head) gives, at every position, a distribution over the token
that belongs there. Where the text holds the tokenizer's mask token ("paris is the [MASK] of
france"), the output is the prediction at those positions and the text with them filled in; without
one, the prediction at every text position (mostly the token itself, for a trained model).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from transformer.engine.records import capture
from transformer.hooks import Intervention
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows


def mask_id(bundle: ModelBundle) -> int | None:
    """The id of the tokenizer's mask token ([MASK]), if it has one."""
    return getattr(bundle.target_tokenizer, "mask_id", None)


def encoder_trace_fields(
    bundle: ModelBundle,
    text: str,
    *,
    names: Iterable[str] | None = None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None = None,
) -> dict[str, Any]:
    """Run an encoder-only `bundle` on `text` under `interventions` and capture `names` (None: all).

    Returns the fields of a `transformer.engine.decoding.Trace` (which `trace_text` builds: this module does not
    import `decoding`, so the two stay out of an import circle).
    """
    reader = bundle.target_tokenizer
    rows = text_rows(bundle, text)
    symbols, _, truncated = rows.text
    if truncated:
        text = reader.detokenize(symbols)
    assert rows.src is not None
    src = torch.tensor([rows.src])  # (1, Ts): <bos> text <eos>
    with torch.no_grad(), capture(bundle.model, names, interventions) as cache:
        logits = bundle.model(src)  # (1, Ts, vocab)
    predicted = logits[0].argmax(dim=-1).tolist()  # (Ts,)
    masked = [i for i, token in enumerate(rows.src) if token == mask_id(bundle)]
    if masked:
        out = [predicted[i] for i in masked]
        filled = [predicted[i] if i in masked else token for i, token in enumerate(rows.src)]
    else:
        out = filled = predicted[1:-1]  # every text position (not <bos>, <eos>)
    return dict(
        text=text,
        src_tokens=reader.symbols(rows.src),
        tgt_tokens=[],
        output_tokens=reader.symbols(out),
        output_text=reader.decode(filled),
        cache=cache,
        truncated=truncated,
        unknown=[s for s in dict.fromkeys(symbols) if s not in reader.index],
        teacher_forced=True,
        src_ids=list(rows.src),
        src_hex=reader.raw_bytes(rows.src),
    )
