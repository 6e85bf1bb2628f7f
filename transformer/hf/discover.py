"""Finding pretrained checkpoint folders in the models dirs a server was given, without loading any.

A models dir may hold checkpoint folders (each with config.json, *.safetensors and tokenizer files),
be one itself, or be a Hugging Face cache (`~/.cache/huggingface/hub`: `models--org--name/snapshots/<rev>`).
Each folder found is described from its config.json and its safetensors headers: family, layers, heads,
width and parameter count, so a picker can show them before anything is loaded. A folder that would be
refused (no safetensors, unknown family, remote code, corrupt) is still listed, with its `problem`, so
the person who put it there learns why it cannot be used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from transformer.hf.errors import PretrainedRefused
from transformer.hf.folder import check_folder, looks_pretrained, parameter_count, snapshot
from transformer.storage.untrusted_files import CheckpointError

# Per family: the config.json keys of (layers, heads, d_model).
SIZE_KEYS = {
    "gpt2": ("n_layer", "n_head", "n_embd"),
    "bert": ("num_hidden_layers", "num_attention_heads", "hidden_size"),
    "marian": ("encoder_layers", "encoder_attention_heads", "d_model"),
    "llama": ("num_hidden_layers", "num_attention_heads", "hidden_size"),
    "qwen2": ("num_hidden_layers", "num_attention_heads", "hidden_size"),
    "qwen3": ("num_hidden_layers", "num_attention_heads", "hidden_size"),
}
CACHE_PREFIX = "models--"


@dataclass(frozen=True)
class PretrainedInfo:
    """One folder found in a models dir. `problem` is set (and the sizes are 0) when it would be refused."""

    name: str  # the folder's name (a cache folder: its repository, "Helsinki-NLP/opus-mt-en-zh")
    path: Path  # the folder as found (a cache folder: the models--… folder)
    root: Path  # the models dir it was found in: loading never leaves it
    family: str = ""
    parameters: int = 0
    n_layers: int = 0
    n_heads: int = 0
    d_model: int = 0
    problem: PretrainedRefused | None = None


def _name(folder: Path) -> str:
    if folder.name.startswith(CACHE_PREFIX):
        return folder.name.removeprefix(CACHE_PREFIX).replace("--", "/")
    return folder.name


def describe(folder: Path, root: Path) -> PretrainedInfo:
    """What `folder` holds, or why it would be refused."""
    try:
        checked = check_folder(folder)
        sizes = [checked.config.get(key, 0) for key in SIZE_KEYS[checked.family]]
        layers, heads, width = (s if isinstance(s, int) else 0 for s in sizes)
        return PretrainedInfo(_name(folder), folder, root, checked.family, parameter_count(checked.weights), layers, heads, width)
    except PretrainedRefused as err:
        return PretrainedInfo(_name(folder), folder, root, problem=err)
    except CheckpointError as err:
        return PretrainedInfo(_name(folder), folder, root, problem=PretrainedRefused("corrupt", str(err), folder=folder.name))


def candidates(root: Path) -> list[Path]:
    """Folders under `root` that look like pretrained checkpoints: `root` itself, its children, cache folders."""
    if not root.is_dir():
        return []
    if looks_pretrained(root):
        return [root]
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []
    return [c for c in children if looks_pretrained(c)]


def find_pretrained(roots: tuple[Path, ...]) -> list[PretrainedInfo]:
    """Every pretrained folder in `roots`, first name wins (a later folder of the same name is left out)."""
    found: dict[str, PretrainedInfo] = {}
    for root in roots:
        for folder in candidates(root):
            info = describe(folder, root)
            found.setdefault(info.name, info)
    return list(found.values())


def inside(folder: Path, root: Path) -> bool:
    """Whether `folder` and every file in it resolve inside `root` (no link leads out of the models dir)."""
    top = root.resolve()
    read = snapshot(folder)
    paths = [folder, read, *(p for p in read.iterdir())] if read.is_dir() else [folder]
    return all(p.resolve().is_relative_to(top) for p in paths)
