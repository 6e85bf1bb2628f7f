"""A pretrained checkpoint folder → the project's `ModelBundle`: the model converted, never wrapped.

    load_pretrained(folder)   check the folder (`folder.check_folder`), read the tokenizer and the
                              weights through `transformers` (offline, safetensors only, no remote
                              code), and convert them (`convert`)
    convert(hf_model, hf_tokenizer, family)   weights → the project's `Transformer`, by the family's
                              map (`gpt2.py`, `bert.py`, `marian.py`); the tests call this directly on
                              tiny random models and compare it with `transformers`' own forward pass

Every hook point of the converted model keeps its name and meaning, so every page runs on it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import torch

from transformer.hf.errors import PretrainedRefused, UnsupportedModel
from transformer.hf.families import FAMILIES, FAMILY_NAMES
from transformer.hf.folder import check_folder, parameter_count
from transformer.hf.pages import copied_away, release_pages
from transformer.hf.tokenizer import PretrainedTokenizer
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.untrusted_files import one_line

PRETRAINED_TASK = "pretrained"  # card["task"] of a converted model: trained (it generates), with no task of this project's
_TOLERATED_MISSING = ("final_logits_bias", "embed_positions", "position_ids")  # buffers transformers rebuilds itself

log = logging.getLogger(__name__)


def _transformers() -> Any:
    """The optional `transformers` package, offline; a clear refusal where it is not installed."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # never reach the network, whatever a folder or a caller asks
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        import transformers
    except ImportError:
        raise PretrainedRefused(
            "no_transformers", "pretrained models need the optional transformers package: pip install -r requirements-hf.txt"
        ) from None
    transformers.utils.logging.disable_progress_bar()  # loading is the app's business to report, not stderr's
    return transformers


def convert(hf_model: Any, hf_tokenizer: Any, family: str, name: str = "pretrained") -> ModelBundle:
    """Convert a loaded `transformers` model of `family` into the project's model (eval mode, float32)."""
    spec = FAMILIES[family]
    vocab = spec.vocab_map(hf_model.config, hf_tokenizer)
    config = spec.config(hf_model.config, vocab, spec.is_tied(hf_model))
    state = spec.state(hf_model, config, vocab)
    model = Transformer.unfilled(config)
    expected = model.state_dict()
    missing, unexpected = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
    if missing or unexpected:
        raise UnsupportedModel(
            f"{FAMILY_NAMES[family]} conversion does not fit: missing {missing[:3]}, unexpected {unexpected[:3]}"
        )
    model.assign({k: v.float() for k, v in state.items()})  # the checkpoint's tensors (views where a family splits one)
    model.eval()
    tokenizer = PretrainedTokenizer(hf_tokenizer, vocab)
    source = tokenizer if config.has_encoder else None
    card = {
        "task": PRETRAINED_TASK,
        "family": family,
        "summary": f"{FAMILY_NAMES[family]} checkpoint {name}, converted from its folder",
        "pretrained_parameters": sum(p.numel() for p in hf_model.parameters()),
    }
    return ModelBundle(model, tokenizer, source, card, name=name)


def load_pretrained(folder: str | Path) -> ModelBundle:
    """Load a Hugging Face checkpoint folder (or cache folder) and convert it. Raises `PretrainedRefused`."""
    checked = check_folder(Path(folder))
    transformers = _transformers()
    spec = FAMILIES[checked.family]
    try:
        path = str(checked.folder)
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
        model_class = getattr(transformers, spec.MODEL_CLASS)
        weights = {"use_safetensors": True, "dtype": torch.float32, "output_loading_info": True}
        hf_model, info = model_class.from_pretrained(path, local_files_only=True, trust_remote_code=False, **weights)
    except PretrainedRefused:
        raise
    except Exception as err:  # transformers raises many kinds for a broken file; each becomes one line
        raise PretrainedRefused(
            "corrupt", one_line(f"{checked.folder}: cannot be read: {err}"), folder=checked.folder.name
        ) from None
    missing = [k for k in info.get("missing_keys", []) if not any(t in k for t in _TOLERATED_MISSING)]
    if missing:
        raise UnsupportedModel(f"{checked.folder} lacks weights the {spec.MODEL_CLASS} needs: {', '.join(sorted(missing)[:3])}")
    name = checked.folder.parent.parent.name if checked.folder.parent.name == "snapshots" else checked.folder.name
    bundle = convert(hf_model.eval(), tokenizer, checked.family, name)
    bundle.card["stored_parameters"] = parameter_count(checked.weights)
    theirs = [t.detach() for t in hf_model.state_dict().values()]
    release_pages(copied_away(theirs, bundle.model.state_dict().values()))  # the old vocabulary's pages (`pages.py`)
    return bundle
