"""Byte-level pieces that split a Chinese character are labelled with that character and which part they hold."""

import pytest

from transformer.hf.byte_labels import part_label, sequence_labels
from transformer.storage.registry import load_model


def test_a_character_split_across_pieces_is_named_in_each():
    text = "你好吗".encode()  # 9 bytes, 3 characters
    pieces = [text[:2], text[2:6], text[6:8], text[8:]]
    assert sequence_labels(pieces, [""] * 4) == ["你 ¹⁄₂", "你 ²⁄₂ 好", "吗 ¹⁄₂", "吗 ²⁄₂"]
    assert part_label("你", 2, 3) == "你 ²⁄₃"
    assert sequence_labels([b" the", None, b"cat"], ["", "<s>", ""]) == [" the", "<s>", "cat"]
    assert sequence_labels([text[:2]], [""]) == ["▯▯"]  # cut off: no character to name, and no escape


@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_labels_of_a_chinese_sentence_are_readable(pretrained_dir, family):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    tokenizer = bundle.target_tokenizer
    ids = tokenizer.ids(tokenizer.tokenize("你好 猫"))  # 你好: not in the tiny tokenizer's merges, one byte a piece
    labels = tokenizer.symbols(ids)
    assert not any("\\x" in s or "\ufffd" in s or "▯" in s for s in labels), labels
    assert labels[:3] == ["你 ¹⁄₃", "你 ²⁄₃", "你 ³⁄₃"] and "猫" in labels[-1]
    assert tokenizer.raw_bytes(ids[:3]) == ["e4", "bd", "a0"]
