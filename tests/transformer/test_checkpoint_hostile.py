"""Hostile checkpoint folders (issue 14): every malformed file is one CheckpointError line, fast.

Complements test_checkpoint.py: oversized configs, deep JSON, mistyped vocabularies, a pad_id
that disagrees with <pad>, a broken optional card, weights that are not a regular file, and tied
embeddings that disagree in the file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from transformer.config import MAX_D_FF, MAX_D_MODEL, MAX_LAYERS, MAX_LEN, TransformerConfig
from transformer.storage.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from transformer.storage.registry import list_models, random_bundle

SYMBOLS = "abcdefghij !"
CONFIG = TransformerConfig(n_layers=1, d_model=16, n_heads=2, d_ff=32, dropout=0.0, max_len=32)
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return save_checkpoint(random_bundle(CONFIG, seed=1, symbols=SYMBOLS), tmp_path / "model")


def _error(folder: Path, *fragments: str) -> str:
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(folder)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


# ---- sizes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "limit"),
    [("n_layers", 10**6, MAX_LAYERS), ("max_len", 10**9, MAX_LEN), ("d_ff", 10**9, MAX_D_FF), ("d_model", 65536, MAX_D_MODEL)],
)
def test_oversized_config_refused_before_allocation(folder: Path, field: str, value: int, limit: int) -> None:
    _edit(folder / "config.json", lambda d: d.update({field: value}))
    start = time.perf_counter()
    _error(folder, "config.json", f"{field}={value}", str(limit))
    assert time.perf_counter() - start < 0.5  # building it took 40 s and 5.7 GB before


# ---- malformed JSON ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["config.json", "vocab.json"])
def test_deeply_nested_json(folder: Path, name: str) -> None:
    (folder / name).write_text(DEEP, encoding="utf-8")
    _error(folder, name, "nested too deeply")


def test_deeply_nested_value_inside_vocab(folder: Path) -> None:
    (folder / "vocab.json").write_text('{"target": {"level": "char", "vocab": ' + DEEP + "}}", encoding="utf-8")
    _error(folder, "vocab.json")


def _set_target(key: str, value: object):
    return lambda d: d["target"].update({key: value})


@pytest.mark.parametrize(
    "change",
    [
        _set_target("level", ["char"]),
        _set_target("level", {}),
        _set_target("level", None),
        _set_target("vocab", [1, 2, 3]),
        _set_target("vocab", {}),
        _set_target("vocab", "<pad><bos>"),
        _set_target("vocab", [["<pad>"], "<bos>"]),
        _set_target("options", []),
        _set_target("options", {"lowercase": "yes"}),
        lambda d: d.update({"target": []}),
        lambda d: d.update({"target": "char"}),
        lambda d: d.update({"source": {}}),
        lambda d: d.update({"source": None}),
        lambda d: d.pop("source"),
    ],
)
def test_vocab_with_wrong_types(folder: Path, change) -> None:
    _edit(folder / "vocab.json", change)
    _error(folder, "vocab.json")


@pytest.mark.parametrize("content", ["{}", "[]", '"x"', "null"])
def test_vocab_not_a_tokenizer_object(folder: Path, content: str) -> None:
    (folder / "vocab.json").write_text(content, encoding="utf-8")
    _error(folder, "vocab.json")


def test_huge_value_quoted_in_one_short_line(folder: Path) -> None:
    _edit(folder / "config.json", lambda d: d.update({"n_layers": "x" * 100_000}))
    _error(folder, "config.json", "n_layers")


# ---- pad_id -----------------------------------------------------------------------------------------


def test_pad_id_that_is_not_the_vocabularys_pad_is_refused(folder: Path) -> None:
    # With pad_id=5 the masks would hide a real symbol and let <pad> (id 0) be attended.
    _edit(folder / "config.json", lambda d: d.update({"pad_id": 5}))
    _error(folder, "config.json", "pad_id=5", "<pad> is id 0")


def test_random_bundle_refuses_a_pad_id_its_tokenizer_does_not_pad_with() -> None:
    with pytest.raises(ValueError, match="pad_id=5"):
        random_bundle(CONFIG.replace(pad_id=5), symbols=SYMBOLS)


# ---- optional card ----------------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", DEEP, "\xff"], ids=["invalid", "list", "deep", "not-utf8"])
def test_broken_card_loads_with_a_warning(folder: Path, content: str) -> None:
    (folder / "card.json").write_text(content, encoding="utf-8" if content != "\xff" else "latin-1")
    bundle = load_checkpoint(folder)
    assert bundle.card == {}
    assert len(bundle.warnings) == 1 and "card.json" in bundle.warnings[0] and "\n" not in bundle.warnings[0]


def test_card_that_is_a_folder_loads_with_a_warning(folder: Path) -> None:
    (folder / "card.json").unlink()
    (folder / "card.json").mkdir()
    assert "not a regular file" in load_checkpoint(folder).warnings[0]


def test_good_or_absent_card_gives_no_warning(folder: Path) -> None:
    assert load_checkpoint(folder).warnings == []
    (folder / "card.json").unlink()
    bundle = load_checkpoint(folder)
    assert bundle.card == {} and bundle.warnings == []


# ---- weights that are not a regular file ------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("name", ["model.safetensors", "config.json", "vocab.json"])
def test_symlink_to_a_device_is_not_a_regular_file(folder: Path, name: str) -> None:
    (folder / name).unlink()
    (folder / name).symlink_to("/dev/zero")
    _error(folder, name, "not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_weights_are_not_a_regular_file(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    os.mkfifo(folder / "model.safetensors")
    _error(folder, "model.safetensors", "not a regular file")


def test_dangling_symlink_is_missing(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").symlink_to(folder / "nowhere")
    _error(folder, "model.safetensors", "missing")


# ---- tied embeddings --------------------------------------------------------------------------------


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_tied_embeddings_that_disagree_are_refused(tmp_path: Path, architecture: str) -> None:
    config = CONFIG.replace(architecture=architecture, share_embeddings=True)
    folder = save_checkpoint(random_bundle(config, seed=2, symbols=SYMBOLS), tmp_path / "tied")
    assert load_checkpoint(folder).config.share_embeddings  # the saved file agrees with itself
    # A file in the older layout (every tied name stored in full, no "tied" metadata) whose copies differ.
    model = load_checkpoint(folder).model
    state = {name: tensor.detach().clone().contiguous() for name, tensor in model.state_dict().items()}
    state["generator.proj.weight"] = state["generator.proj.weight"] + 1.0
    save_file(state, str(folder / "model.safetensors"))
    _error(folder, "model.safetensors", "share_embeddings", "generator.proj.weight")


def test_tied_embeddings_round_trip_still_ties(tmp_path: Path) -> None:
    folder = save_checkpoint(random_bundle(CONFIG.replace(share_embeddings=True), seed=3, symbols=SYMBOLS), tmp_path / "t")
    model = load_checkpoint(folder).model
    assert model.generator.proj.weight is model.tgt_embed.lut.weight is model.src_embed.lut.weight
    assert torch.isfinite(model.generator.proj.weight).all()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_listing_models_skips_a_broken_or_fifo_card(folder: Path) -> None:
    other = save_checkpoint(random_bundle(CONFIG, seed=4, symbols=SYMBOLS), folder.parent / "other")
    (folder / "card.json").write_text(DEEP, encoding="utf-8")
    (other / "card.json").unlink()
    os.mkfifo(other / "card.json")  # reading it would block forever
    infos = list_models(folder.parent)
    assert [(info.name, info.card) for info in infos] == [("model", {}), ("other", {})]
    assert "not a regular file" in load_checkpoint(other).warnings[0]
