"""The heads grid's tile hovers list where each tile's first rows look most; with a byte-level model each line ends
with the raw bytes of its row and key (issue 36 §3), here checked line by line against the ids of the run read
through the folder's own tokenizer (tiny random GPT-2 and Qwen2); a shipped model's lines have none."""

import numpy as np
import pytest

from runs.heads import kind_grid
from runs.text_run import attention_names, run_text
from tests.byte_hex import their_hex
from transformer.storage.registry import DEFAULT_MODEL, load_model
from viz.head_grid import PEAK_ROWS, GridText

TEXT = "你好 猫"
WORDS = GridText(bytes="字节：{hex}")


def _tile_lines(fig) -> list[list[str]]:
    """Each tile's hover lines after its name (the scatter whose hovertemplate is a list, one per tile)."""
    hovers = next(tr.hovertemplate for tr in fig.data if isinstance(tr.hovertemplate, (list, tuple)))
    return [h.removesuffix("<extra></extra>").split("<br>")[1:] for h in hovers]


@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_each_tile_line_ends_with_its_row_and_keys_bytes(pretrained_dir, family):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    trace = run_text(bundle, TEXT, attention_names(bundle))
    layers = range(bundle.config.n_layers)
    fig = kind_grid(trace, "decoder", layers, 1, WORDS)
    ids = list(trace.tgt_ids)
    tiles = [(layer, head) for layer in layers for head in range(bundle.config.n_heads)]
    checked = 0
    for (layer, head), lines in zip(tiles, _tile_lines(fig), strict=True):
        peaks = np.asarray(trace.pattern("decoder", layer)[head]).argmax(-1)  # (Tq,) the key each row weights most
        for i, line in enumerate(lines[:PEAK_ROWS]):
            if i + 1 >= len(ids) or line == "…":
                continue
            reads, writes, key = (their_hex(bundle, ids[j]) for j in (i, i + 1, int(peaks[i])))
            query = f"{reads or '–'} → {writes or '–'}" if reads or writes else ""
            if query or key:
                assert line.endswith(f" · 字节：{query or '–'}: {key or '–'}"), (line, query, key)
                checked += 1
            else:
                assert "字节" not in line, line
    assert checked  # the split pieces of 你 gave lines with bytes to check


def test_a_shipped_models_tile_lines_have_no_bytes():
    bundle = load_model(DEFAULT_MODEL)
    trace = run_text(bundle, "we are happy today", attention_names(bundle))
    fig = kind_grid(trace, "decoder", range(bundle.config.n_layers), 1, WORDS)
    lines = [line for tile in _tile_lines(fig) for line in tile]
    assert lines and not any("字节" in line for line in lines)
