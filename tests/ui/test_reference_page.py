"""The task's verdict is shown under the output, in the user's language (the verdict itself:
tests/runs/test_reference.py)."""

import pytest

from tests.ui.conftest import app_test, assert_no_exception


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("en", "hello", "Correct: this is the task's right output."),
        ("zh", "i read", "超出了模型训练所用的小语法"),
    ],
)
def test_the_verdict_is_shown_under_the_output_in_the_users_language(lang, text, expected):
    model = "reverse" if text == "hello" else "translate-en-zh"
    at = app_test("heads")  # the lesson is the home page
    at.query_params.update(text=text, model=model)
    at.session_state["lang"] = lang  # as the other AppTest page tests choose the language
    at.run()
    assert_no_exception(at)
    shown = [m.value for m in (*at.success, *at.warning)]
    assert any(expected in m for m in shown), shown
