"""The masks of a padded batch, exactly, and the same ones the model applies (transformer/text/batch.py)."""

import numpy as np
import torch

from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.model import Transformer
from transformer.text.batch import Batch, batch_masks, pad_batch
from transformer.text.rows import encode_text, reading_row
from transformer.text.tokenizer import CharTokenizer

TOKENIZER = CharTokenizer("abc")  # <pad> <bos> <eos> <unk> a b c
SRC = [["a", "b", "c", "<eos>"], ["a", "<eos>"], ["c", "b", "<eos>"]]  # lengths 4, 2, 3
TGT = [["<bos>", "a"], ["<bos>", "a", "b", "c"], ["<bos>"]]  # lengths 2, 4, 1


def _ids(sequences):
    return pad_batch([TOKENIZER.ids(s) for s in sequences], 0)


def test_padding_and_unknown_symbols():
    assert _ids(SRC).tolist() == [[4, 5, 6, 2], [4, 2, 0, 0], [6, 5, 2, 0]]
    assert _ids(TGT).tolist() == [[1, 4, 0, 0], [1, 4, 5, 6], [1, 0, 0, 0]]
    assert TOKENIZER.ids(["zzz", "a"]) == [3, 4]


def test_encode_text_cuts_to_leave_room_for_the_rows_special():
    assert encode_text(TOKENIZER, "abz", 8) == (["a", "b", "z"], [4, 5, 3], False)
    assert encode_text(TOKENIZER, "abcab", 4) == (["a", "b", "c"], [4, 5, 6], True)  # 3 symbols + <eos> or <bos>


def test_padding_causal_combined_and_cross_masks_exactly():
    m = batch_masks(_ids(TGT), 0, _ids(SRC))
    assert m.src_padding.int().tolist() == [[1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 0]]
    assert m.tgt_padding.int().tolist() == [[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]
    assert m.causal.int().tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]
    # Sentence 0: decoder input "<bos> a <pad> <pad>": padding AND causal.
    assert m.decoder_self[0].int().tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]]
    assert m.decoder_self[2].int().tolist() == [[1, 0, 0, 0]] * 4
    # Cross: every decoder query (padded ones too) sees the real source keys only.
    assert m.cross.shape == (3, 4, 4) and m.cross[1].int().tolist() == [[1, 1, 0, 0]] * 4
    assert m.encoder_self[2].int().tolist() == [[1, 1, 1, 0]] * 4


def test_decoder_only_batch_has_no_source_masks():
    m = batch_masks(pad_batch([[1, 4, 5], [1]], 0), 0)
    assert m.src_padding is None and m.cross is None and m.encoder_self is None
    assert m.decoder_self[1].int().tolist() == [[1, 0, 0]] * 3


def test_masks_equal_what_the_model_applies_to_the_padded_batch():
    torch.manual_seed(0)
    model = Transformer(
        TransformerConfig(src_vocab_size=7, tgt_vocab_size=7, n_layers=1, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    ).eval()
    src, tgt = _ids(SRC), _ids(TGT)
    m = batch_masks(tgt, 0, src)
    names = [
        "encoder.layers.0.self_attn.hook_mask",
        "decoder.layers.0.self_attn.hook_mask",
        "decoder.layers.0.cross_attn.hook_mask",
    ]
    with torch.no_grad(), capture(model, names) as cache:
        model(src, tgt)
    for name, mask in zip(names, (m.encoder_self, m.decoder_self, m.cross), strict=True):
        assert np.array_equal(cache[name][:, 0].numpy(), mask.numpy()), name


def test_batch_shifts_pads_and_masks_in_one_place():
    """Source + <eos>; <bos> + target in; target + <eos> out; padded; masks as `batch_masks` builds them."""
    batch = Batch.from_pairs([[4, 5, 6], [4], [6, 5]], [[4], [4, 5, 6], []])
    assert batch.src.tolist() == _ids(SRC).tolist()
    assert batch.tgt_in.tolist() == _ids(TGT).tolist()
    assert batch.tgt_out.tolist() == [[4, 2, 0, 0], [4, 5, 6, 2], [2, 0, 0, 0]]
    expected = batch_masks(batch.tgt_in, 0, batch.src)
    assert all(torch.equal(a, b) for a, b in zip(batch.masks(), expected, strict=True))
    decoder_only = Batch.from_pairs(None, [[4, 5]])
    assert decoder_only.src is None and decoder_only.masks().cross is None
    assert reading_row([4, 5], is_encoder_decoder=True) == [4, 5, 2] and reading_row([4, 5], False) == [1, 4, 5]
