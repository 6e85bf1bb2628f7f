"""Checking a pretrained checkpoint folder before anything in it is loaded.

A folder is accepted only when its config.json names a family the app converts (`families.py`), asks
for no code of its own (`auto_map`: the app never runs a folder's code), and its weights are in
safetensors (a pickle can run code when loaded). A Hugging Face cache folder (`models--org--name`) is
read through its newest snapshot. Nothing here imports `transformers`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safetensors import SafetensorError, safe_open

from transformer.hf.errors import PretrainedRefused
from transformer.hf.families import FAMILIES, FAMILY_NAMES
from transformer.storage.untrusted_files import CheckpointError, one_line, read_json

CONFIG = "config.json"
PICKLE_WEIGHTS = ("pytorch_model.bin", "tf_model.h5", "flax_model.msgpack")
CONVERT_HINT = (
    "convert it once on a machine with transformers: "
    "AutoModel.from_pretrained(folder, local_files_only=True).save_pretrained(folder, safe_serialization=True)"
)


def looks_pretrained(folder: Path) -> bool:
    """A Hugging Face checkpoint (config.json with a model_type) or cache folder, not one of the project's own."""
    folder = snapshot(folder)
    try:
        data = read_json(folder / CONFIG)
    except CheckpointError:
        return False
    return isinstance(data, dict) and "model_type" in data


def snapshot(folder: Path) -> Path:
    """The folder to read: itself, or a cache folder's newest snapshot (`models--org--name/snapshots/<rev>`)."""
    snapshots = folder / "snapshots"
    if (folder / CONFIG).exists() or not snapshots.is_dir():
        return folder
    found = [s for s in snapshots.iterdir() if (s / CONFIG).is_file()]
    return max(found, key=lambda s: s.stat().st_mtime) if found else folder


@dataclass(frozen=True)
class FolderCheck:
    """What a checked folder holds: its family and the config as JSON."""

    folder: Path
    family: str
    config: dict[str, Any]
    weights: tuple[Path, ...]

    @property
    def family_name(self) -> str:
        return FAMILY_NAMES[self.family]


def check_folder(folder: Path) -> FolderCheck:
    """Refuse (`PretrainedRefused`) a folder the app must not or cannot load; else what it holds."""
    folder = snapshot(folder)
    config = read_json(folder / CONFIG)
    if not isinstance(config, dict):
        raise PretrainedRefused("corrupt", f"{folder / CONFIG} is not a JSON object", folder=folder.name)
    if "auto_map" in config:
        raise PretrainedRefused(
            "remote_code",
            f"{folder}: config.json asks to run the folder's own code (auto_map); the app never does",
            folder=folder.name,
        )
    family = config.get("model_type")
    if family not in FAMILIES:
        known = ", ".join(FAMILY_NAMES.values())
        raise PretrainedRefused(
            "unknown_family",
            f"{folder}: model_type {family!r} is not a family the app converts ({known})",
            family=str(family),
            known=known,
        )
    weights = tuple(sorted(folder.glob("*.safetensors")))
    if not weights:
        pickled = [name for name in PICKLE_WEIGHTS if (folder / name).exists()]
        found = f"only {', '.join(pickled)}" if pickled else "no weights"
        raise PretrainedRefused(
            "no_safetensors", f"{folder} has {found}; the app reads safetensors only: {CONVERT_HINT}", folder=folder.name
        )
    check = getattr(FAMILIES[family], "check", None)
    if check is not None:  # the family's own refusals, from config.json alone (`transformer/hf/llama.py`)
        check(folder, config)
    return FolderCheck(folder, family, config, weights)


def parameter_count(weights: tuple[Path, ...]) -> int:
    """Parameters stored in the safetensors files, read from their headers only (no tensor is loaded)."""
    total = 0
    for path in weights:
        try:
            with safe_open(str(path), "pt") as f:
                for name in f.keys():  # noqa: SIM118 (safe_open is not a dict)
                    count = 1
                    for size in f.get_slice(name).get_shape():
                        count *= size
                    total += count
        except (SafetensorError, OSError) as err:
            raise PretrainedRefused(
                "corrupt", one_line(f"{path} is not a readable safetensors file: {err}"), folder=path.parent.name
            ) from None
    return total
