"""Pretrained checkpoints the server may read: from `--models-dir DIR` and `ATLAS_MODELS_DIR`, by name only.

    streamlit run app.py -- --models-dir ~/models --models-dir ~/.cache/huggingface/hub
    ATLAS_MODELS_DIR=~/models:/data/hf streamlit run app.py      (os.pathsep between dirs)

The server lists the folders it finds there (`transformer.hf.discover`); a page, a link or a cache key
names one only by its name (`PRETRAINED_PREFIX` + name), never by a path, and loading refuses a folder
that leads out of its models dir. Without the optional `transformers` package the list is empty.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

from transformer.hf.discover import PretrainedInfo, find_pretrained, inside
from transformer.hf.errors import PretrainedRefused
from transformer.storage.checkpoint import ModelBundle

ENV = "ATLAS_MODELS_DIR"
PRETRAINED_PREFIX = "pretrained:"
RESCAN_SECONDS = 10.0  # a folder copied into a models dir appears within this long, without rescanning every rerun
_scanned: dict[tuple[Path, ...], tuple[float, list[PretrainedInfo]]] = {}


def models_dirs(argv: list[str] | None = None, environ: dict[str, str] | None = None) -> tuple[Path, ...]:
    """The models dirs named on the command line (after `--`) and in `ATLAS_MODELS_DIR`, in that order."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--models-dir", action="append", default=[])
    try:
        known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    except argparse.ArgumentError:  # "--models-dir" with no folder after it: no folder from the command line
        known = argparse.Namespace(models_dir=[])
    env = (os.environ if environ is None else environ).get(ENV, "")
    dirs = [*known.models_dir, *(d for d in env.split(os.pathsep) if d)]
    return tuple(dict.fromkeys(Path(d).expanduser() for d in dirs))


def transformers_installed() -> bool:
    return importlib.util.find_spec("transformers") is not None


def pretrained_models() -> list[PretrainedInfo]:
    """The folders in this server's models dirs (rescanned at most every `RESCAN_SECONDS`)."""
    roots = models_dirs()
    if not roots or not transformers_installed():
        return []
    now = time.monotonic()
    cached = _scanned.get(roots)
    if cached is None or now - cached[0] > RESCAN_SECONDS:
        _scanned[roots] = cached = (now, find_pretrained(roots))
    return cached[1]


def pretrained_key(name: str) -> str:
    return PRETRAINED_PREFIX + name


def pretrained_info(key: str) -> PretrainedInfo | None:
    """The listed folder a `pretrained:<name>` key names, or None."""
    name = key.removeprefix(PRETRAINED_PREFIX)
    return next((info for info in pretrained_models() if info.name == name), None)


def load_pretrained_named(key: str) -> ModelBundle:
    """Load the listed folder a key names; raises `PretrainedRefused` (reason "outside" for a link out of its dir)."""
    from transformer.hf.load import load_pretrained  # the conversion code, only once a folder is chosen

    info = pretrained_info(key)
    name = key.removeprefix(PRETRAINED_PREFIX)
    if info is None:
        raise PretrainedRefused("outside", f"no pretrained model named {name!r} in this server's models dirs", folder=name)
    if info.problem is not None:
        raise info.problem
    if not inside(info.path, info.root):
        raise PretrainedRefused("outside", f"{info.path} leads out of its models dir {info.root}; it is not read", folder=name)
    bundle = load_pretrained(info.path)
    bundle.name = info.name
    return bundle
