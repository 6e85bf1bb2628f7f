"""Llama / Qwen2 / Qwen3 folders from a models dir: found and described, loaded, and refused (before any weight is
read) with one line in the UI's language naming what and why."""

import json
import shutil
from pathlib import Path

import pytest

from transformer.hf.discover import find_pretrained
from transformer.hf.errors import PretrainedRefused
from transformer.storage.registry import load_model

CATALOGS = Path(__file__).resolve().parents[2] / "assets" / "i18n"


def _variant(pretrained_dir: Path, tmp_path: Path, name: str, family: str = "qwen2", **changes) -> Path:
    """A copy of tiny-`family` with config.json changed and its weights garbage: a refusal that read the weights
    would say "corrupt", so each test below also shows that none was read."""
    folder = tmp_path / name
    shutil.copytree(pretrained_dir / f"tiny-{family}", folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
    (folder / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    return folder


def _refused(folder: Path) -> PretrainedRefused:
    with pytest.raises(PretrainedRefused) as info:
        load_model(folder)
    return info.value


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3"])
def test_a_folder_is_described_and_loaded(pretrained_dir, family):
    [info] = [i for i in find_pretrained((pretrained_dir,)) if i.family == family]
    assert info.problem is None and (info.n_layers, info.n_heads, info.d_model) == (2, 4, 32)
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    assert bundle.config.positional == "rotary" and bundle.card["family"] == family


def _catalog_line(err: PretrainedRefused, lang: str) -> str:
    key = err.details["catalog"].removeprefix("modern.")
    text = json.loads((CATALOGS / lang / "modern.json").read_text(encoding="utf-8"))[key]
    return text.format(**{k: str(v) for k, v in err.details.items()})


@pytest.mark.parametrize(
    ("changes", "catalog", "named"),
    [
        ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0}}, "rope_type", "yarn"),
        ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}, "rope_parameters": None}, "rope_type", "llama3"),
        ({"use_sliding_window": True}, "sliding_window", None),
        ({"layer_types": ["sliding_attention", "full_attention"]}, "sliding_window", None),
        ({"num_experts": 8}, "experts", None),
        ({"num_hidden_layers": 80}, "limits", "80"),
        ({"hidden_act": "gelu"}, "activation", "gelu"),
    ],
)
def test_variants_that_would_not_convert_exactly_are_refused_before_the_weights(
    pretrained_dir, tmp_path, changes, catalog, named
):
    err = _refused(_variant(pretrained_dir, tmp_path, "variant", **changes))
    assert err.reason == "unsupported" and err.details["catalog"] == f"modern.refused_{catalog}"
    for lang in ("en", "zh"):
        line = _catalog_line(err, lang)
        assert "\n" not in line and "{" not in line and (named is None or named in line)


def test_other_families_and_a_missing_tokenizer_are_refused(pretrained_dir, tmp_path):
    for model_type in ("gpt_neox", "gemma", "gemma3", "qwen2_moe", "mixtral"):
        err = _refused(_variant(pretrained_dir, tmp_path, model_type, model_type=model_type))
        assert err.reason == "unknown_family" and err.details["family"] == model_type
        assert "Qwen2" in err.details["known"] and "Llama" in err.details["known"]
    folder = _variant(pretrained_dir, tmp_path, "no-tokenizer", "llama")
    (folder / "tokenizer.json").unlink()
    err = _refused(folder)
    assert err.details["catalog"] == "modern.refused_no_tokenizer" and "no-tokenizer" in _catalog_line(err, "zh")
