"""Model references: the URL's string keys round-trip, and a reference loads the model it names."""

import subprocess
import sys
from pathlib import Path

import pytest

from runs.model_ref import RANDOM_DEFAULTS, ModelRef, load_bundle, random_key, register_loader
from transformer.storage.registry import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[2]


def test_random_keys_keep_the_url_format_and_round_trip():
    key = random_key(d_model=32, n_layers=1)
    assert key.startswith("random?") and "d_model=32" in key and "n_layers=1" in key and "seed=0" in key
    ref = ModelRef.parse(key)
    assert ref.is_random and ref.key == key and ref == ModelRef.random(n_layers=1, d_model=32)
    assert hash(ref) == hash(ModelRef.random(d_model=32, n_layers=1))  # hashable: a cache key


def test_a_partial_random_key_gets_the_defaults():
    assert ModelRef.parse("random?seed=3") == ModelRef.random(seed=3)
    assert dict(ModelRef.parse("random").settings) == RANDOM_DEFAULTS


def test_shipped_name_is_its_own_key():
    ref = ModelRef.parse(DEFAULT_MODEL)
    assert not ref.is_random and ref.key == DEFAULT_MODEL and ref.settings == ()


def test_a_random_reference_builds_its_config_and_seed():
    ref = ModelRef.random(d_model=32, n_heads=2, n_layers=1, seed=7, norm_position="pre")
    config, seed = ref.random_config()
    assert (config.d_model, config.d_ff, config.n_heads, config.n_layers, config.norm_position, seed) == (32, 128, 2, 1, "pre", 7)
    bundle = load_bundle(ref)
    assert bundle.card["task"] == "random" and bundle.config.d_model == 32
    again = load_bundle(ModelRef.parse(ref.key))
    assert all((a == b).all() for a, b in zip(bundle.model.parameters(), again.model.parameters(), strict=True))  # same seed


def test_an_unknown_name_raises_a_clear_error():
    with pytest.raises(ValueError):
        load_bundle(ModelRef("no-such-model"))


def test_a_registered_loader_answers_its_keys():
    built = load_bundle(ModelRef.random(d_model=32, n_heads=2, n_layers=1))
    asked: list[str] = []
    register_loader("test-loader:", lambda key: asked.append(key) or built)
    assert load_bundle(ModelRef.parse("test-loader:x")) is built and asked == ["test-loader:x"]


def test_a_trained_key_is_gone_before_and_after_the_training_registry_is_loaded():
    """No circle: model_ref never imports the registry; the registry registers its loader when imported."""
    code = (
        "import sys, pytest\n"
        "from runs.model_ref import ModelRef, load_bundle\n"
        "assert 'runs.training.registry' not in sys.modules\n"
        "with pytest.raises(ValueError, match='gone'):\n"
        "    load_bundle(ModelRef.parse('trained:reverse-00000000'))\n"
        "import runs.training.registry\n"
        "with pytest.raises(ValueError, match='gone'):\n"
        "    load_bundle(ModelRef.parse('trained:reverse-00000000'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
