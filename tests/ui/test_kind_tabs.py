"""The open attention-kind tab survives a language switch (its state is a label, which the switch makes stale)."""

from streamlit.testing.v1 import AppTest

from tests.ui.conftest import assert_no_exception
from ui.i18n import catalog


def _tabs_script() -> None:
    import streamlit as st

    from ui.kind_tabs import open_kind_tab

    kind, tab = open_kind_tab(["encoder", "decoder", "cross"], "tabs", default="encoder")
    tab.write(f"open: {kind}")
    st.session_state["open"] = kind


def test_the_open_tab_stays_open_after_a_language_switch():
    at = AppTest.from_function(_tabs_script)
    at.session_state["lang"] = "en"
    at.run()
    assert_no_exception(at)
    assert at.session_state["open"] == "encoder"
    at.session_state["tabs"] = catalog("en")["heads.kind_cross"]  # the reader opens the cross tab
    at.run()
    assert at.session_state["open"] == "cross"
    at.session_state["lang"] = "zh"
    at.run()
    assert_no_exception(at)
    assert at.session_state["open"] == "cross"
    assert at.session_state["tabs"] == catalog("zh")["heads.kind_cross"]


def _one_kind_script() -> None:
    import streamlit as st

    from ui.kind_tabs import open_kind_tab

    kind, box = open_kind_tab(["decoder"], "tabs")
    box.write(f"open: {kind}")
    st.session_state["open"] = kind


def test_a_single_kind_is_named_without_a_tab_bar():
    """GPT-2 (decoder self-attention only) or BERT (encoder only): the kind's name, in the UI language, above its
    contents, and no tab container, whose checks after every change inside it cost the browser a style pass each."""
    for lang in ("en", "zh"):
        at = AppTest.from_function(_one_kind_script)
        at.session_state["lang"] = lang
        at.run()
        assert_no_exception(at)
        assert not at.tabs and at.session_state["open"] == "decoder"
        shown = [m.value for m in at.markdown]
        assert shown[0] == f"**{catalog(lang)['heads.kind_decoder']}**" and shown[-1] == "open: decoder", shown
