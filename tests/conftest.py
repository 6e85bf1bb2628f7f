"""Fixtures every test folder shares: tiny pretrained checkpoint folders, built offline once per session."""

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def pretrained_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A models dir holding one tiny random checkpoint of each family (gpt2, bert, marian), as
    `save_pretrained` writes them; skipped where the optional `transformers` is not installed."""
    pytest.importorskip("transformers")
    from transformer.hf.random_folder import BUILDERS

    root = tmp_path_factory.mktemp("pretrained")
    for family, build in BUILDERS.items():
        build(root / f"tiny-{family}")
    yield root
