"""The task's verdict is shown under the output, in the user's language (the verdict itself:
tests/runs/test_reference.py)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP, assert_no_exception


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("en", "hello", "Correct: this is the task's right output."),
        ("zh", "i read", "超出了模型训练所用的小语法"),
    ],
)
def test_the_verdict_is_shown_under_the_output_in_the_users_language(lang, text, expected):
    model = "reverse" if text == "hello" else "translate-en-zh"
    at = AppTest.from_file(APP, default_timeout=180).switch_page("views/heads.py")  # the lesson is the default page
    at.query_params.update(text=text, model=model)
    at.session_state["lang"] = lang  # as the other AppTest page tests choose the language
    at.run()
    assert_no_exception(at)
    shown = [m.value for m in (*at.success, *at.warning)]
    assert any(expected in m for m in shown), shown
