"""Write a randomly initialised checkpoint folder of a pretrained family, offline, as `transformers` saves one.

Tests and benchmarks need GPT-2, BERT and Marian folders without downloading any: each builder trains a
tiny tokenizer of the family's kind on a few lines (byte-level BPE, WordPiece from a written vocab.txt,
a SentencePiece model), builds the family's model from a config with random weights (seeded), and saves
both with `save_pretrained(..., safe_serialization=True)`. Sizes are the caller's: a test uses 2 layers of
width 32; the scale benchmark a GPT-2-small-sized model (12 × 12, d = 768, 124 M parameters).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import torch

from transformer.hf.load import _transformers

LINES = (
    "i read a book in the library today",
    "the cat sat on the mat and the dog sat on the cat",
    "she writes a letter to her friend",
    "我 今天 在 图书馆 读 书",
    "猫 坐在 垫子 上",
)
WORDPIECE = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "."]
WORDPIECE += [*sorted({w for line in LINES for w in line.split() if w.isascii()}), "##s", "##ing", "##ed"]
WORDPIECE += sorted({c for line in LINES for c in line if not c.isascii() and not c.isspace()})


def _save(model: Any, tokenizer: Any, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder), safe_serialization=True)
    tokenizer.save_pretrained(str(folder))
    return folder


def gpt2_folder(
    folder: Path,
    *,
    n_layer: int = 2,
    n_embd: int = 32,
    n_head: int = 4,
    n_positions: int = 64,
    vocab_size: int | None = None,
    seed: int = 0,
) -> Path:
    """A GPT-2 with a byte-level BPE tokenizer (`<|endoftext|>` is its only special token, as in GPT-2).

    `vocab_size` above the tokenizer's gives the embedding GPT-2's real size (50,257 rows: GPT-2 small's
    124 M parameters) while the tiny tokenizer uses its first rows only.
    """
    from tokenizers import ByteLevelBPETokenizer

    tf = _transformers()
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        list(LINES) * 4, vocab_size=320, min_frequency=1, special_tokens=["<|endoftext|>"], show_progress=False
    )
    end = "<|endoftext|>"
    tokenizer = tf.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token=end, eos_token=end, unk_token=end)
    end_id = tokenizer.convert_tokens_to_ids(end)
    config = tf.GPT2Config(
        vocab_size=max(vocab_size or 0, len(tokenizer)),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=end_id,
        eos_token_id=end_id,
    )
    torch.manual_seed(seed)
    return _save(tf.GPT2LMHeadModel(config), tokenizer, folder)


def bert_folder(
    folder: Path, *, layers: int = 2, hidden: int = 32, heads: int = 4, max_positions: int = 64, seed: int = 0
) -> Path:
    """A BERT with its masked-LM head and a WordPiece vocabulary of English words, "##" pieces and Chinese characters."""
    tf = _transformers()
    folder.mkdir(parents=True, exist_ok=True)
    vocab_file = folder / "vocab.txt"
    vocab_file.write_text("\n".join(WORDPIECE) + "\n", encoding="utf-8")
    tokenizer = tf.BertTokenizer(str(vocab_file))
    config = tf.BertConfig(
        vocab_size=len(WORDPIECE),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        max_position_embeddings=max_positions,
        pad_token_id=0,
    )
    torch.manual_seed(seed)
    return _save(tf.BertForMaskedLM(config), tokenizer, folder)


def _sentencepiece(path: Path) -> list[str]:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(LINES) * 4),
        model_writer=model,
        vocab_size=60,
        model_type="unigram",
        character_coverage=1.0,
        unk_id=0,
        eos_id=1,
        bos_id=-1,
        pad_id=-1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    path.write_bytes(model.getvalue())
    processor = spm.SentencePieceProcessor(model_file=str(path))
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def marian_folder(
    folder: Path, *, layers: int = 2, d_model: int = 32, heads: int = 4, max_positions: int = 64, seed: int = 0
) -> Path:
    """A Marian translator (one SentencePiece model for both sides, `<pad>` last, as opus-mt has it)."""
    tf = _transformers()
    folder.mkdir(parents=True, exist_ok=True)
    pieces = _sentencepiece(folder / "source.spm")
    (folder / "target.spm").write_bytes((folder / "source.spm").read_bytes())
    vocab = {piece: i for i, piece in enumerate(pieces)} | {"<pad>": len(pieces)}
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = tf.MarianTokenizer(
        source_spm=str(folder / "source.spm"), target_spm=str(folder / "target.spm"), vocab=str(folder / "vocab.json")
    )
    pad = vocab["<pad>"]
    config = tf.MarianConfig(
        vocab_size=len(vocab),
        decoder_vocab_size=len(vocab),
        d_model=d_model,
        encoder_layers=layers,
        decoder_layers=layers,
        encoder_attention_heads=heads,
        decoder_attention_heads=heads,
        encoder_ffn_dim=4 * d_model,
        decoder_ffn_dim=4 * d_model,
        max_position_embeddings=max_positions,
        activation_function="swish",
        pad_token_id=pad,
        decoder_start_token_id=pad,
        eos_token_id=vocab["</s>"],
        scale_embedding=True,
    )
    torch.manual_seed(seed)
    return _save(tf.MarianMTModel(config), tokenizer, folder)


def _byte_level_tokenizer(tf: Any, end: str = "<|endoftext|>") -> Any:
    """A byte-level BPE tokenizer trained on `LINES`, `end` its only special token (Qwen's and Llama 3's kind)."""
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(list(LINES) * 4, vocab_size=300, min_frequency=1, special_tokens=[end], show_progress=False)
    return tf.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token=end, eos_token=end, unk_token=end)


def _randomize_norms_and_biases(model: Any, seed: int) -> None:
    """Norm gains around 1 and biases around 0, random (a fresh model's are exactly 1 and 0, which would hide a
    gain or a bias converted to the wrong place)."""
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.3 * torch.randn(p.shape, generator=generator))
            elif name.endswith(".bias"):
                p.copy_(0.3 * torch.randn(p.shape, generator=generator))


def decoder_folder(
    folder: Path,
    family: str = "llama",
    *,
    layers: int = 2,
    hidden: int = 32,
    heads: int = 4,
    kv_heads: int = 2,
    intermediate: int = 48,
    head_dim: int | None = None,
    rope_theta: float = 5000.0,
    tied: bool = False,
    max_positions: int = 64,
    vocab_size: int | None = None,
    init_range: float = 0.2,
    seed: int = 0,
) -> Path:
    """A Llama, Qwen2 or Qwen3 (`family`) with a byte-level BPE tokenizer: fewer key/value heads than query heads,
    a non-default `rope_theta`, random norm gains and biases. `vocab_size` above the tokenizer's gives the embedding
    a real model's size (Qwen2.5's 151,936 rows) while the tiny tokenizer uses its first rows only."""
    tf = _transformers()
    tokenizer = _byte_level_tokenizer(tf)
    end_id = tokenizer.eos_token_id
    config_class = {"llama": tf.LlamaConfig, "qwen2": tf.Qwen2Config, "qwen3": tf.Qwen3Config}[family]
    extra: dict[str, Any] = {"attention_bias": True, "mlp_bias": True} if family == "llama" else {}
    config = config_class(
        vocab_size=max(vocab_size or 0, len(tokenizer)),
        hidden_size=hidden,
        intermediate_size=intermediate,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim or hidden // heads,
        max_position_embeddings=max_positions,
        rope_theta=rope_theta,
        rms_norm_eps=1e-6,
        tie_word_embeddings=tied,
        initializer_range=init_range,
        bos_token_id=end_id,
        eos_token_id=end_id,
        **extra,
    )
    torch.manual_seed(seed)
    model_class = {"llama": tf.LlamaForCausalLM, "qwen2": tf.Qwen2ForCausalLM, "qwen3": tf.Qwen3ForCausalLM}[family]
    model = model_class(config)
    _randomize_norms_and_biases(model, seed)
    return _save(model, tokenizer, folder)


def llama_folder(folder: Path, **sizes: Any) -> Path:
    """A Llama with biases on every projection (attention_bias, mlp_bias), untied output."""
    return decoder_folder(folder, "llama", **sizes)


def qwen2_folder(folder: Path, **sizes: Any) -> Path:
    """A Qwen2 (W^Q, W^K, W^V biased), tied embeddings as Qwen2.5-0.5B has them."""
    return decoder_folder(folder, "qwen2", **{"tied": True, **sizes})


def qwen3_folder(folder: Path, **sizes: Any) -> Path:
    """A Qwen3 (q/k norms) whose head_dim is not hidden / heads, as Qwen3's own are."""
    return decoder_folder(folder, "qwen3", **{"head_dim": 16, "tied": True, **sizes})


BUILDERS = {
    "gpt2": gpt2_folder,
    "bert": bert_folder,
    "marian": marian_folder,
    "llama": llama_folder,
    "qwen2": qwen2_folder,
    "qwen3": qwen3_folder,
}
