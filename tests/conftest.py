"""Fixtures every test folder shares: tiny pretrained checkpoint folders, built offline once per session."""

import os
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


@pytest.fixture(scope="session", autouse=True)
def atlas_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Atlases computed on demand for converted folders go to a temporary folder, never the user's data folder
    (`runs.atlas_page.CACHE_ENV`); set in the environment, so the servers browser tests start inherit it."""
    folder = tmp_path_factory.mktemp("atlas-cache")
    before = os.environ.get("ATLAS_CACHE_DIR")
    os.environ["ATLAS_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("ATLAS_CACHE_DIR", None)
    else:
        os.environ["ATLAS_CACHE_DIR"] = before


@pytest.fixture(autouse=True)
def bare_session_state_cleared() -> Iterator[None]:
    """Outside a script run ("bare mode") Streamlit keeps one process-wide session state: a unit test that sets
    `st.session_state["lang"] = "zh"` there would leave every later test's `t()` outside a run in Chinese (AppTest
    formats a selectbox's new value with the page's format_func outside the run: the training page's picker test
    then failed only after such a test). Each test starts and ends with it empty."""
    import streamlit as st

    def clear() -> None:
        for key in list(st.session_state.keys()):
            del st.session_state[key]

    clear()
    yield
    clear()
