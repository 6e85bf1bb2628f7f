"""A text is read once, and how much of it fits is one rule (`transformer.text.reading`): the check under the text
box, the byte estimate, the arithmetic's choice and the run read the same symbols and cut them at the same place,
for every architecture, an encoder-only (BERT) model's two specials included."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runs.text_run import capture_bytes, run_precision, run_text
from runs.validation import check_text
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.registry import load_model, random_bundle
from transformer.text.prompt import text_rows
from transformer.text.reading import read_text, reader, symbols_that_fit
from transformer.text.tokenizer import CharTokenizer

ARCHITECTURES = ["encoder-decoder", "decoder-only", "encoder-only"]


def _bundle(architecture: str):
    config = TransformerConfig(architecture=architecture, n_layers=1, d_model=16, n_heads=2, d_ff=32, max_len=12)
    return random_bundle(config, seed=1, symbols="abc ")


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_the_check_and_the_run_cut_the_text_at_the_same_symbol(architecture):
    bundle = _bundle(architecture)
    fit = symbols_that_fit(bundle.config)
    assert fit == bundle.config.max_len - (2 if architecture == "encoder-only" else 1)
    for length in (fit - 1, fit, fit + 1, fit + 5):
        text = "abc" * 10
        text = text[:length]
        check = check_text(text, reader(bundle), fit)
        rows = text_rows(bundle, text)
        assert rows.text.truncated == (check.truncated_to is not None) == read_text(bundle, text).truncated
        assert len(rows.text.symbols) == min(length, fit) == len(reader(bundle).tokenize(check.text))
        row = rows.src if rows.src is not None else rows.prefix
        assert len(row) <= bundle.config.max_len  # the specials fit beside the kept symbols
        if length > fit:
            assert len(row) == bundle.config.max_len and check.truncated_to == fit and check.original_tokens == length


class CountingTokenizer(CharTokenizer):
    """A character tokenizer that counts the texts it tokenizes."""

    def __init__(self, symbols) -> None:
        super().__init__(symbols)
        self.read: list[str] = []

    def tokenize(self, text: str) -> list[str]:
        self.read.append(text)
        return super().tokenize(text)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_a_page_reads_its_text_once(architecture):
    bundle = _bundle(architecture)
    counting = CountingTokenizer("abc ")
    bundle = replace(bundle, source_tokenizer=counting if bundle.source_tokenizer else None, target_tokenizer=counting)
    typed = "abcab cab"
    check = check_text(typed, reader(bundle), symbols_that_fit(bundle.config))  # the check under the box
    names = tuple(n for n in bundle.model.hook_names if n.endswith("hook_pattern"))
    capture_bytes(bundle, check.text, names)  # room made for the run
    run_precision(bundle, check.text, names)  # its arithmetic
    data = run_text(bundle, check.text, names)  # the run, and the labels it carries
    assert data.src_tokens or data.tgt_tokens
    assert sorted(set(counting.read)) == sorted(counting.read), counting.read  # no text tokenized twice


def test_a_bert_folder_s_check_and_run_agree_on_how_many_symbols_fit(pretrained_dir):
    """A tiny random BERT (`transformer.hf.random_folder`): one word more than its row holds is cut by the check
    (which the page reports) exactly where the run cuts it, [CLS] and [SEP] included."""
    bundle = load_model(pretrained_dir / "tiny-bert")
    config = bundle.config
    assert config.is_encoder_only
    typed = " ".join(["the"] * (config.max_len - 1))  # fitted a decoder's row; BERT's adds two specials
    assert len(reader(bundle).tokenize(typed)) == config.max_len - 1
    check = check_text(typed, reader(bundle), symbols_that_fit(config))
    assert check.truncated_to == config.max_len - 2 and check.original_tokens == config.max_len - 1
    cut = trace_text(bundle, typed)  # the run on the whole text cuts it at the same symbol
    assert cut.truncated and len(cut.src_tokens) == config.max_len
    shown = trace_text(bundle, check.text)  # what the page runs: the checked text, which fits whole
    assert not shown.truncated and shown.src_tokens == cut.src_tokens
    assert shown.src_tokens[0] == "[CLS]" and shown.src_tokens[-1] == "[SEP]"
