"""A converted checkpoint computes what `transformers` computes: logits within 1e-4, every attention
pattern within 1e-5 (float32), on a padded batch, for each family, on tiny random models built offline.

The reference runs in eager attention (`attn_implementation="eager"`): other implementations return
no attention weights. Padded query rows are left out of the comparison: a padding position's own row
is read by nobody, and the converted model embeds padding as the project's <pad> (zeros for GPT-2,
which has no padding token), where `transformers` embeds whatever id the caller put there.
"""

from pathlib import Path

import pytest
import torch

from hook_names import act_name
from transformer.hf.families import FAMILIES
from transformer.hf.load import convert
from transformer.hooks import capture
from transformer.text.tokenizer import PAD_ID

transformers = pytest.importorskip("transformers")

TEXTS = ["i read a book in the library today", "the cat sat", "我 今天 在 图书馆 读 书"]
LOGITS_TOL, PATTERN_TOL = 1e-4, 1e-5


def _reference(family: str, folder: Path):
    model_class = getattr(transformers, FAMILIES[family].MODEL_CLASS)
    model = model_class.from_pretrained(str(folder), attn_implementation="eager", dtype=torch.float32, local_files_only=True)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    return model.eval(), tokenizer


def _pad(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad `rows` with `pad`; returns (ids, real) with real = 1 where a row has a token."""
    width = max(map(len, rows))
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])  # (B, T)
    real = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])  # (B, T)
    return ids, real


def _ours(bundle, rows: list[list[int]]) -> torch.Tensor:
    """The same rows in the project's numbering, padded with the project's <pad>."""
    return _pad([[bundle.target_tokenizer.map.ours(i) for i in r] for r in rows], PAD_ID)[0]


def _close_rows(ours: torch.Tensor, theirs: torch.Tensor, real: torch.Tensor, tol: float, what: str) -> None:
    """Compare (B, [H,] T, ...) arrays on real query rows only (`real` is (B, T))."""
    for b in range(real.shape[0]):
        n = int(real[b].sum())
        a, e = (ours[b, :, :n], theirs[b, :, :n]) if ours.dim() == 4 else (ours[b, :n], theirs[b, :n])
        assert torch.allclose(a, e, atol=tol, rtol=0), f"{what}, batch item {b}: max diff {(a - e).abs().max():.2e}"


def _logits_in_their_order(bundle, logits: torch.Tensor) -> torch.Tensor:
    vocab = bundle.target_tokenizer.map
    return logits[..., [vocab.output_id(h) for h in range(vocab.size)]]


def _check_patterns(model, cache, theirs, kind: str, real_queries: torch.Tensor) -> None:
    assert len(theirs) == model.config.n_layers
    for layer, expected in enumerate(theirs):
        _close_rows(cache[act_name(kind, layer, "pattern")], expected, real_queries, PATTERN_TOL, f"{kind} layer {layer} pattern")


def test_gpt2_matches_transformers(pretrained_dir):
    hf_model, tok = _reference("gpt2", pretrained_dir / "tiny-gpt2")
    bundle = convert(hf_model, tok, "gpt2")
    rows = [[tok.eos_token_id, *tok(t, add_special_tokens=False).input_ids] for t in TEXTS]
    ids, real = _pad(rows, tok.eos_token_id)
    with torch.no_grad():
        out = hf_model(input_ids=ids, attention_mask=real, output_attentions=True)
        with capture(bundle.model) as cache:
            logits = bundle.model(None, _ours(bundle, rows))
    _close_rows(_logits_in_their_order(bundle, logits), out.logits, real, LOGITS_TOL, "logits")
    _check_patterns(bundle.model, cache, out.attentions, "decoder", real)


def test_bert_matches_transformers(pretrained_dir):
    hf_model, tok = _reference("bert", pretrained_dir / "tiny-bert")
    bundle = convert(hf_model, tok, "bert")
    texts = [*TEXTS[:2], "i [MASK] a book"]
    rows = [tok(t).input_ids for t in texts]  # [CLS] … [SEP]
    assert rows[0][0] == tok.cls_token_id and rows[0][-1] == tok.sep_token_id
    ids, real = _pad(rows, tok.pad_token_id)
    with torch.no_grad():
        out = hf_model(input_ids=ids, attention_mask=real, output_attentions=True)
        with capture(bundle.model) as cache:
            logits = bundle.model(_ours(bundle, rows))
    _close_rows(_logits_in_their_order(bundle, logits), out.logits, real, LOGITS_TOL, "logits")
    _check_patterns(bundle.model, cache, out.attentions, "encoder", real)


def test_marian_matches_transformers(pretrained_dir):
    hf_model, tok = _reference("marian", pretrained_dir / "tiny-marian")
    bundle = convert(hf_model, tok, "marian")
    sources = [tok(t).input_ids for t in TEXTS]  # tokens + </s>
    start = hf_model.config.decoder_start_token_id
    targets = [[start, *tok(text_target=t, add_special_tokens=False).input_ids] for t in reversed(TEXTS)]
    src, src_real = _pad(sources, tok.pad_token_id)
    tgt, tgt_real = _pad(targets, tok.pad_token_id)
    with torch.no_grad():
        out = hf_model(
            input_ids=src, attention_mask=src_real, decoder_input_ids=tgt, decoder_attention_mask=tgt_real, output_attentions=True
        )
        with capture(bundle.model) as cache:
            logits = bundle.model(_ours(bundle, sources), _ours(bundle, targets))
    _close_rows(_logits_in_their_order(bundle, logits), out.logits, tgt_real, LOGITS_TOL, "logits")
    _check_patterns(bundle.model, cache, out.encoder_attentions, "encoder", src_real)
    _check_patterns(bundle.model, cache, out.decoder_attentions, "decoder", tgt_real)
    _check_patterns(bundle.model, cache, out.cross_attentions, "cross", tgt_real)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_copies_of_specials_never_win_the_output(pretrained_dir, family):
    """Ids 0, 1, 3 and the second copy of the end token are banned, so greedy decoding stops at <eos>."""
    hf_model, tok = _reference(family, pretrained_dir / f"tiny-{family}")
    vocab = convert(hf_model, tok, family).target_tokenizer.map
    bias = convert(hf_model, tok, family).model.generator.proj.bias
    assert all(bias[i] < -1e8 for i in vocab.banned())
    assert vocab.output_id(vocab.eos) == 2 and vocab.ours(vocab.eos) == 2


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_tied_weights_convert_to_one_parameter(pretrained_dir, family):
    """Loaded by assignment, a checkpoint's tied embedding and output matrix stay one Parameter: held once."""
    hf_model, tok = _reference(family, pretrained_dir / f"tiny-{family}")
    model = convert(hf_model, tok, family).model
    tied = FAMILIES[family].is_tied(hf_model)
    embed = model.tgt_embed if model.config.has_decoder else model.src_embed
    assert tied == model.config.share_embeddings
    assert (model.generator.proj.weight is embed.lut.weight) == tied
    assert not any(p.is_meta for p in model.parameters()) and not any(b.is_meta for b in model.buffers())
