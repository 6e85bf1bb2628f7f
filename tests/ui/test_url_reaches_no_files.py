"""A student's URL cannot make the server load anything but a shipped model or random weights.

`transformer.storage.registry.load_model` accepts a folder path, so this checks the one door a URL has to it:
the sidebar's model picker, bound to `?model=`. AppTest ignores URL binding, so this talks to a real
`streamlit run` through Streamlit's websocket protocol, as a browser opening a crafted link does.
"""

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.browser import streamlit_server
from benchmarks.classroom import Student
from transformer.storage.registry import DEFAULT_MODEL, MODELS_DIR

SHIPPED_SUMMARY = {
    name: json.loads((MODELS_DIR / name / "card.json").read_text(encoding="utf-8"))["summary"]
    for name in ("reverse", DEFAULT_MODEL)
}


async def _sidebar_text(port: int, query: str) -> str:
    student = Student(port)
    await student.connect()
    try:
        student.query = query
        _, messages = await student.rerun()
    finally:
        await student.close()
    return "\n".join(
        m.delta.new_element.markdown.body
        for m in messages
        if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == "markdown"
    )


def _sidebar_text_now(port: int, query: str) -> str:
    """Run `_sidebar_text` on a thread of its own: pytest-playwright's sync API keeps an event loop
    running on the main thread once an e2e test has used it, and `asyncio.run` refuses to nest."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _sidebar_text(port, query)).result()


@pytest.mark.slow
def test_a_path_in_the_url_loads_the_default_model_not_the_folder():
    reverse = MODELS_DIR / "reverse"
    with streamlit_server() as server:
        port = int(server.url.rsplit(":", 1)[1])
        named = _sidebar_text_now(port, "lang=en&model=reverse")
        assert SHIPPED_SUMMARY["reverse"] in named  # the door works for a shipped name
        for path in (str(reverse), "../assets/models/reverse", "assets/models/reverse", "/etc"):
            shown = _sidebar_text_now(port, f"lang=en&model={path}")
            assert SHIPPED_SUMMARY["reverse"] not in shown, path
            assert SHIPPED_SUMMARY[DEFAULT_MODEL] in shown, path


@pytest.mark.slow
def test_a_pretrained_folder_is_reached_by_its_listed_name_only(pretrained_dir, tmp_path, monkeypatch):
    """Issue 23: `?model=` picks a checkpoint of the server's models dir by its folder name; a path to it, a path
    out of the dir, or a folder the server does not list loads nothing and the page stays on the default model."""
    import shutil

    listed = tmp_path / "listed"
    listed.mkdir()
    shutil.copytree(pretrained_dir / "tiny-gpt2", listed / "tiny-gpt2")  # tiny-bert stays outside the server's dir
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(listed))
    card = "checkpoint “tiny-"
    with streamlit_server() as server:
        port = int(server.url.rsplit(":", 1)[1])
        assert "GPT-2 checkpoint “tiny-gpt2”" in _sidebar_text_now(port, "lang=en&model=tiny-gpt2")
        for value in (
            str(listed / "tiny-gpt2"),
            "../listed/tiny-gpt2",
            "tiny-bert",
            str(pretrained_dir / "tiny-bert"),
            str(pretrained_dir),
        ):
            shown = _sidebar_text_now(port, f"lang=en&model={value}")
            assert card not in shown, value
            assert SHIPPED_SUMMARY[DEFAULT_MODEL] in shown, value
