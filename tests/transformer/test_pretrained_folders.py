"""Pretrained folders from disk: the Hugging Face cache layout, load_model and the CLI, the refusals,
readable labels, and the models dirs a server reads."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from runs.pretrained import load_pretrained_named, models_dirs, pretrained_key, pretrained_models
from transformer.hf.discover import find_pretrained
from transformer.hf.errors import PretrainedRefused
from transformer.hf.tokenizer import byte_level_label
from transformer.storage.registry import load_model

ROOT = Path(__file__).resolve().parents[2]


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _cache_layout(folder: Path, hub: Path, repo: str) -> Path:
    """`folder` laid out as huggingface_hub caches it: blobs, a snapshot of links into them, refs/main."""
    top = hub / ("models--" + repo.replace("/", "--"))
    (top / "blobs").mkdir(parents=True)
    snap = top / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    for f in folder.iterdir():
        blob = top / "blobs" / f"blob-{f.name}"
        shutil.copy(f, blob)
        (snap / f.name).symlink_to(Path("../../blobs") / blob.name)
    (top / "refs").mkdir()
    (top / "refs" / "main").write_text("0123abcd")
    return top


def test_a_hugging_face_cache_folder_works_as_a_models_dir(pretrained_dir, tmp_path):
    hub = tmp_path / "hub"
    top = _cache_layout(pretrained_dir / "tiny-marian", hub, "Helsinki-NLP/opus-mt-tiny")
    [info] = find_pretrained((hub,))
    assert (info.name, info.family, info.problem) == ("Helsinki-NLP/opus-mt-tiny", "marian", None)
    assert info.n_layers == 2 and info.d_model == 32 and info.parameters > 0
    bundle = load_model(top)  # load_model takes the cache folder itself too
    assert bundle.config.is_encoder_decoder and bundle.name == "models--Helsinki-NLP--opus-mt-tiny"


def test_load_model_and_every_family_size(pretrained_dir):
    for family, arch in (("gpt2", "decoder-only"), ("bert", "encoder-only"), ("marian", "encoder-decoder")):
        bundle = load_model(pretrained_dir / f"tiny-{family}")
        assert bundle.config.architecture == arch
        assert bundle.config.estimated_parameters() == bundle.model.num_parameters()  # the limits see the real size


def test_cli_trace_accepts_a_pretrained_folder(pretrained_dir, tmp_path):
    out = tmp_path / "run.npz"
    folder = str(pretrained_dir / "tiny-bert")
    cmd = [sys.executable, "-m", "transformer", "trace", "--model", folder, "--text", "i [MASK] a book"]
    done = subprocess.run([*cmd, "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    arrays = np.load(out)
    assert list(arrays["tokens.src"]) == ["[CLS]", "i", "[MASK]", "a", "book", "[SEP]"]
    assert arrays["encoder.layers.1.self_attn.hook_pattern"].shape == (1, 4, 6, 6)


def _refused(folder: Path) -> PretrainedRefused:
    with pytest.raises(PretrainedRefused) as info:
        load_model(folder)
    return info.value


def test_refusals_say_why(pretrained_dir, tmp_path):
    bin_only = _copy(pretrained_dir / "tiny-gpt2", tmp_path / "bin-only")
    (bin_only / "model.safetensors").rename(bin_only / "pytorch_model.bin")
    err = _refused(bin_only)
    assert err.reason == "no_safetensors" and "pytorch_model.bin" in str(err) and "safe_serialization=True" in str(err)

    unknown = _copy(pretrained_dir / "tiny-gpt2", tmp_path / "gpt-neox")
    config = json.loads((unknown / "config.json").read_text())
    (unknown / "config.json").write_text(json.dumps({**config, "model_type": "gpt_neox"}))
    err = _refused(unknown)
    assert err.reason == "unknown_family" and err.details["family"] == "gpt_neox"

    remote = _copy(pretrained_dir / "tiny-gpt2", tmp_path / "remote")
    (remote / "config.json").write_text(json.dumps({**config, "auto_map": {"AutoModel": "modeling_evil.Model"}}))
    assert _refused(remote).reason == "remote_code"

    corrupt = _copy(pretrained_dir / "tiny-gpt2", tmp_path / "corrupt")
    (corrupt / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    assert _refused(corrupt).reason == "corrupt"

    headless = _copy(pretrained_dir / "tiny-bert", tmp_path / "headless")
    from safetensors.torch import load_file, save_file

    weights = load_file(headless / "model.safetensors")
    save_file({k: v for k, v in weights.items() if not k.startswith("cls.")}, headless / "model.safetensors", {"format": "pt"})
    err = _refused(headless)
    assert err.reason == "unsupported" and "cls.predictions" in str(err)


def test_a_folder_leading_out_of_its_models_dir_is_not_read(pretrained_dir, tmp_path, monkeypatch):
    models = tmp_path / "models"
    models.mkdir()
    (models / "escape").symlink_to(pretrained_dir / "tiny-gpt2", target_is_directory=True)
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(models))
    assert [i.name for i in pretrained_models()] == ["escape"]
    with pytest.raises(PretrainedRefused) as info:
        load_pretrained_named(pretrained_key("escape"))
    assert info.value.reason == "outside"
    with pytest.raises(PretrainedRefused) as info:
        load_pretrained_named(pretrained_key("../tiny-gpt2"))  # a name, never a path
    assert info.value.reason == "outside"


def test_models_dirs_come_from_the_command_line_and_the_environment(tmp_path):
    got = models_dirs(["--models-dir", "/a", "--models-dir", "/b"], {"ATLAS_MODELS_DIR": "/c:/a"})
    assert got == (Path("/a"), Path("/b"), Path("/c"))
    assert models_dirs([], {}) == ()
    assert models_dirs(["--models-dir"], {}) == ()  # no folder named: none, and no exit
    assert models_dirs(["--models", "/x"], {}) == ()  # no abbreviations: pytest's or streamlit's own flags stay theirs


def test_labels_are_readable():
    assert byte_level_label("Ġbook") == " book"
    assert byte_level_label("æĪĳ") == "我"  # three bytes of one character, decoded
    assert byte_level_label("æĪ") == "▯▯"  # part of a character, read alone: neither escapes nor a replacement mark
    assert byte_level_label("<|endoftext|>") == "<|endoftext|>"


def test_pretrained_tokenizers_label_pieces_plainly(pretrained_dir):
    from transformer.engine.decoding import trace_text

    gpt2 = trace_text(load_model(pretrained_dir / "tiny-gpt2"), "the cat 猫", generate=False)
    assert gpt2.tgt_tokens[0] == "<|endoftext|>" and " cat" in gpt2.tgt_tokens and not any("Ġ" in s for s in gpt2.tgt_tokens)
    bert = trace_text(load_model(pretrained_dir / "tiny-bert"), "the cats 猫")
    assert bert.src_tokens == ["[CLS]", "the", "cat", "##s", "猫", "[SEP]"]
    marian = trace_text(load_model(pretrained_dir / "tiny-marian"), "the cat")
    assert marian.src_tokens[-1] == "</s>" and any(s.startswith("▁") for s in marian.src_tokens)
    assert marian.tgt_tokens[0] == "<pad>"  # Marian's decoder starts from its <pad>, the project's <bos>
