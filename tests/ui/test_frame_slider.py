"""The training film's frame slider: counted from 1 like its caption, and it stays where the reader put it.

Issue 39 §5: during live training, with "Follow the latest frame" off, the film jumped back to frame 1 and stayed
there. Each new frame raises the slider's maximum, which makes Streamlit treat it as a new widget; one whose value
is not handed over from the session falls back to its minimum. These tests grow a film under the real
`_frame_index` and fail on that behaviour.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.ui.conftest import assert_no_exception


def _script() -> None:
    """A film of `frames` frames (session state, grown by the test) under the training page's frame slider."""
    from types import SimpleNamespace

    import numpy as np
    import streamlit as st

    from ui.pages.training.panel import _frame_index

    frames = st.session_state.setdefault("frames", 3)
    if st.session_state.get("hide_slider"):  # a run that does not draw the slider (another view of the page)
        st.write("no film this run")
        return
    film = SimpleNamespace(n_frames=frames, frame_steps=np.arange(1, frames + 1) * 10)
    st.session_state["index"] = _frame_index(film)


def _app() -> AppTest:
    at = AppTest.from_function(_script, default_timeout=60)
    at.run()
    assert_no_exception(at)
    return at


def _caption(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_the_slider_counts_frames_from_one_as_its_caption_does():
    at = _app()
    slider = at.slider(key="tr_frame")
    assert (slider.min, slider.max, slider.value) == (1, 3, 3)  # follows the latest frame: frame 3 of 3
    assert "Frame 3 of 3" in _caption(at) and at.session_state["index"] == 2
    slider.set_value(1).run()
    assert "Frame 1 of 3: the model after step 10." in _caption(at) and at.session_state["index"] == 0


def test_a_growing_film_keeps_the_chosen_frame_when_not_following():
    at = _app()
    at.slider(key="tr_frame").set_value(2).run()  # moving the slider turns following off
    assert at.session_state["tr_follow"] is False
    for frames in (4, 5, 6):  # training goes on: each new frame raises the slider's maximum
        at.session_state["frames"] = frames
        at.run()
        assert_no_exception(at)
        slider = at.slider(key="tr_frame")
        assert (slider.max, slider.value) == (frames, 2), (frames, slider.value)
        assert f"Frame 2 of {frames}" in _caption(at)
        assert at.session_state["index"] == 1


def test_a_run_without_the_slider_does_not_send_it_back_to_frame_one():
    at = _app()
    at.slider(key="tr_frame").set_value(2).run()
    at.session_state["hide_slider"] = True
    at.run()
    at.session_state["hide_slider"] = False
    at.session_state["frames"] = 4
    at.run()
    assert at.slider(key="tr_frame").value == 2


def test_following_shows_the_newest_frame():
    at = _app()
    at.session_state["frames"] = 5
    at.run()
    assert at.slider(key="tr_frame").value == 5
