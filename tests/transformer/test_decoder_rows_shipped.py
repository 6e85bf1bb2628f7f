"""On the default example, the card's alignment head reads the source word of the token its row writes."""

from __future__ import annotations

import pytest

from hook_names import act_name, parse_head_label
from transformer.engine.decoding import trace_text
from transformer.storage.registry import DEFAULT_MODEL, MODELS_DIR, load_model
from viz.trace import TraceData

pytestmark = pytest.mark.skipif(not (MODELS_DIR / DEFAULT_MODEL).is_dir(), reason="shipped model missing")


def test_alignment_head_reads_the_word_its_row_writes() -> None:
    bundle = load_model("translate-en-zh")
    kind, layer, head = parse_head_label(bundle.card["attention"]["best_cross_attention_head"])
    assert (kind, layer) == ("cross", 1)
    data = TraceData.from_trace(trace_text(bundle, bundle.card["example"]))
    pattern = data.arrays[act_name(kind, layer, "pattern")][0, head]  # (Tq, Tk)
    looked_at = {data.next_tokens[row]: data.src_tokens[int(pattern[row].argmax())] for row in range(pattern.shape[0])}
    assert looked_at["今天"] == "today"
    assert looked_at["图书馆"] == "library"
    assert data.next_tokens[data.tgt_tokens.index("我")] == "今天"  # labelled by the input, the row would read "我"
    assert bundle.target_tokenizer.symbols(data.tgt_ids) == list(data.tgt_tokens)
    assert bundle.source_tokenizer.symbols(data.src_ids) == list(data.src_tokens)
