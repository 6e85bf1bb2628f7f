"""The input area every page shares, as a teacher meets it (issue 10 §4, issue 14 "Text and URLs").

Each page runs alone here (views/heads.py is the lightest page that shows the output); the whole app with
its navigation is used where the sidebar's language switch matters.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import TIMEOUT, app_test, assert_no_exception, open_page, page_path
from transformer.storage.registry import load_model
from transformer.tasks import describe_grammar, diagnose, get_task, random_sentence
from ui.i18n import catalog
from ui.url_values import MAX_URL_TEXT_CHARS


def _page(name: str = "heads", *, lang: str = "en", **params: str) -> AppTest:
    return open_page(name, params=params, lang=lang)


def _messages(at: AppTest) -> list[str]:
    return [m.value for kind in ("success", "info", "warning", "error") for m in getattr(at, kind)]


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in (*at.markdown, *at.caption))


def _codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


def _strip(template: str) -> str:
    """The fixed part of a catalog string before its first placeholder."""
    return template.split("{", 1)[0]


# ---- issue 10 §4: inputs a teacher types, and a grammar they can see ---------------------------------


def test_punctuation_a_teacher_types_keeps_the_verdict():
    at = _page(model="translate-en-zh", text="I read a book in the library today.")
    assert catalog("en")["input.correct"] in _messages(at)
    assert not any("<unk>" in m for m in _messages(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_out_of_grammar_names_the_problem_and_offers_the_nearest_sentence(lang):
    text = "i eat red apples"
    diagnosis = diagnose(get_task("translate-en-zh"), text)
    assert diagnosis is not None and diagnosis.nearest is not None
    at = _page(model="translate-en-zh", text=text, lang=lang)
    shown = _markdown(at)
    problem = catalog(lang)["grammar.problem_adjective_noun"].format(adjective="red", noun="apples")
    assert problem in shown
    assert diagnosis.nearest in _codes(at)
    at.button(key="use_nearest").click().run()
    assert_no_exception(at)
    assert at.text_input(key="text").value == diagnosis.nearest
    assert not any(catalog(lang)["input.out_of_grammar"] in m for m in _messages(at))  # now inside the grammar


def test_unknown_words_are_named_and_a_sentence_is_offered():
    at = _page(model="translate-en-zh", text="hello world")
    expected = catalog("en")["grammar.problem_unknown_word"].format(word="hello")
    assert expected in _markdown(at)
    assert at.button(key="use_nearest") is not None


def test_the_random_sentence_is_the_tasks_own_held_out_draw():
    at = _page(model="translate-en-zh")
    at.button(key="random_sentence").click().run()
    assert_no_exception(at)
    expected = random_sentence(get_task("translate-en-zh"), seed=1).source
    assert at.text_input(key="text").value == expected
    assert catalog("en")["input.heldout"] in _markdown(at)  # the verdict is honest: never trained on
    at.button(key="random_sentence").click().run()
    assert at.text_input(key="text").value == random_sentence(get_task("translate-en-zh"), seed=2).source


@pytest.mark.parametrize(("lang", "model"), [("en", "translate-en-zh"), ("zh", "translate-zh-en")])
def test_what_can_i_type_lists_patterns_and_words_by_category(lang, model):
    at = _page(model=model, lang=lang)
    grammar = describe_grammar(get_task(model))
    assert catalog(lang)["grammar.what_can_i_type"] in [e.label for e in at.expander]
    shown = _markdown(at)
    for role in grammar.lexicon:
        english, chinese = grammar.category_names[role]
        assert f"**{chinese if lang == 'zh' else english}** ({len(grammar.lexicon[role])})" in shown
    assert catalog(lang)["grammar.pattern_sentence"] in shown
    tabs = [catalog(lang)[f"grammar.tab_{k}"] for k in ("patterns", "words", "combinations")]
    assert [tab.label for tab in at.tabs][:3] == tabs


@pytest.mark.parametrize("model", ["translate-en-zh", "translate-zh-en", "reverse", "random"])
def test_input_help_says_what_the_model_reads_and_promises_no_emoji(model):
    at = _page(model=model)
    captions = [c.value for c in at.caption]
    key = {
        "translate-en-zh": "reads_word",
        "translate-zh-en": "reads_chinese_word",
        "reverse": "reads_character",
        "random": "reads_untrained",
    }[model]
    line = next((c for c in captions if c.startswith(_strip(catalog("en")[f"grammar.{key}"]))), None)
    assert line is not None, captions
    help_text = at.text_input(key="text").help
    assert line in help_text and "emoji all work" not in help_text
    if model == "reverse":
        limit = load_model("reverse").card.get("trained_max_len") or load_model("reverse").card["data"]["max_len"]
        assert f"up to {limit} long" in line
    if model in ("reverse", "random"):  # only a model with a task has a right output for every text of its set
        assert (catalog("en")["grammar.char_note"] in captions) == (model == "reverse")


def test_reverse_warns_past_its_trained_length():
    card = load_model("reverse").card
    limit = card.get("trained_max_len") or card["data"]["max_len"]
    at = _page(model="reverse", text="a" * (limit + 5))
    warning = catalog("en")["grammar.too_long"].format(length=limit + 5, limit=limit)
    assert warning in _messages(at)
    at = _page(model="reverse", text="a" * limit)
    assert not any(_strip(catalog("en")["grammar.too_long"]) in m for m in _messages(at))


def test_the_length_warning_counts_unknown_symbols_too():
    """An emoji past the trained length is one more position the model reads (as <unk>): the warning still shows,
    beside the unknown-symbol notice, and counts it."""
    limit = load_model("reverse").card["trained_max_len"]
    at = _page(model="reverse", text="a" * limit + "\U0001f600")
    messages = _messages(at)
    assert catalog("en")["grammar.too_long"].format(length=limit + 1, limit=limit) in messages
    assert catalog("en")["input.unknown"].format(n=1) in messages


@pytest.mark.parametrize(
    ("model", "text", "verdict"),
    [
        ("reverse", "张梓涵", "input.correct"),
        ("reverse", "ab\U0001f600cd", "input.correct"),  # <unk> in the emoji's place is the right output
        ("translate-en-zh", "hello world", "input.out_of_grammar"),
        ("translate-en-zh", "i read a book", "input.correct"),
        ("induction", "aK\U0001f600aK", "input.unknown_not_judged"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_input_gets_a_verdict_line(model, text, verdict, lang):
    at = _page(model=model, text=text, lang=lang)
    assert_no_exception(at)
    assert catalog(lang)[verdict] in _messages(at)
    unknown = "\U0001f600" in text
    assert (catalog(lang)["input.unknown_in_place"] in _markdown(at)) == (unknown and model == "reverse")


def test_the_chinese_translator_is_offered_and_reads_chinese():
    at = _page(model="translate-zh-en", text="我今天在图书馆读一本书。")
    assert "translate-zh-en" in at.sidebar.selectbox(key="model").options
    assert catalog("en")["input.correct"] in _messages(at)
    assert not any("<unk>" in m for m in _messages(at))


# ---- issue 14: text and URLs -------------------------------------------------------------------------


def test_a_link_with_100000_characters_reopens_in_seconds_with_a_notice():
    began = time.perf_counter()
    at = _page(model="reverse", text="ab" * 50_000)
    elapsed = time.perf_counter() - began
    assert elapsed < 60, elapsed  # > 3 min before the cap; the model load is most of what is left
    notice = catalog("en")["input.url_text_cut"].format(name="text", total="100,000", kept=f"{MAX_URL_TEXT_CHARS:,}")
    assert notice in _messages(at)
    assert len(at.text_input(key="text").value) == MAX_URL_TEXT_CHARS
    # no max_chars in the browser (it dropped a longer paste whole): the box's callback cuts one (test_long_paste.py)
    assert at.text_input(key="text").proto.max_chars == 0


def test_the_truncation_notice_counts_the_whole_input():
    at = _page(model="reverse", text="ab" * 1000)  # 2,000 characters, reverse reads max_len - 1
    max_tokens = load_model("reverse").config.max_len - 1
    assert catalog("en")["input.truncated"].format(kept=max_tokens, total=2000) in _messages(at)


@pytest.mark.parametrize(
    ("page", "params"),
    [
        ("step_by_step", {"dk_seed": "9" * 10_000}),
        ("step_by_step", {"dk_seed": "-5", "dk": "1e999"}),
        ("heads", {"model": "random", "r_seed": "9" * 5000, "r_layers": "100000", "r_heads": "0"}),
        ("heads", {"layer": "9" * 400, "head": "-1"}),
        ("masks", {"layer": "99999999999999999999999999999999999"}),
        ("positional", {"pe_pos": "1" + "0" * 3000, "pe_k": "x"}),
        ("layernorm", {"ln_pair_layers": "9" * 100}),
    ],
)
def test_every_url_number_is_range_checked(page, params):
    at = _page(page, **params)
    notice = next((m for m in _messages(at) if m.startswith(_strip(catalog("en")["input.url_numbers_dropped"]))), None)
    assert notice is not None, _messages(at)
    for key in params:
        if key != "model":
            assert f"`{key}`" in notice and key not in at.query_params


@pytest.mark.parametrize(("page", "key"), [("masks", "row"), ("step_by_step", "query")])
def test_a_labelled_choice_that_is_no_option_opens_the_default(page, key):
    """`row` and `query` carry their option's label ("2: he eats an apple"); anything else in the link
    (a number, 10 kB of digits) is not an option, and the page opens on its default, unharmed."""
    at = _page(page, **{key: "9" * 10_000})
    assert_no_exception(at)
    assert at.selectbox(key=key).value is not None


def test_long_token_lists_stay_one_line_with_the_full_list_folded():
    at = _page(model="reverse", text="abcdefghij" * 4)  # 40 characters → 41 source tokens
    labels = [e.label for e in at.expander]
    assert catalog("en")["input.all_tokens"].format(n=41) in labels
    assert any(code.endswith(" · …") for code in _codes(at))


# ---- the sidebar: language codes, model warnings and load errors -------------------------------------


def test_lang_code_in_the_url_is_accepted_and_written():
    at = app_test("heads")  # the lesson is the home page
    at.query_params["lang"] = "zh"
    at.run()
    assert_no_exception(at)
    assert at.title[0].value == catalog("zh")["heads.title"]
    assert at.query_params.get("lang") in ("zh", ["zh"])
    at.sidebar.segmented_control(key="lang").set_value("en").run()
    assert at.title[0].value == catalog("en")["heads.title"] and "lang" not in at.query_params
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    assert at.query_params.get("lang") in ("zh", ["zh"])


@pytest.mark.parametrize("raw", ["简体中文", "ZH", "zh-CN"])
def test_old_links_with_the_label_or_a_region_still_open_in_chinese(raw):
    at = app_test("heads")  # the lesson is the home page
    at.query_params["lang"] = raw
    at.run()
    assert at.title[0].value == catalog("zh")["heads.title"]


def _show_broken_card(folder: str) -> None:
    from transformer.storage.checkpoint import load_checkpoint
    from ui.sidebar import model_warnings

    model_warnings(load_checkpoint(folder))


def test_a_broken_card_loads_with_a_warning_in_the_sidebar(tmp_path):
    import shutil

    from transformer.storage.registry import MODELS_DIR

    folder = tmp_path / "reverse"
    shutil.copytree(MODELS_DIR / "reverse", folder)
    (folder / "card.json").write_text("{not json", encoding="utf-8")
    at = AppTest.from_function(_show_broken_card, args=(str(folder),), default_timeout=TIMEOUT)
    at.run()
    assert_no_exception(at)
    assert [w.value for w in at.sidebar.warning] == [catalog("en")["sidebar.load_warnings"].format(n=1)]
    assert "card.json" in at.sidebar.code[0].value


def _picker_with_failing_load(message: str) -> None:
    import streamlit as st

    import ui.sidebar
    from transformer.storage.checkpoint import CheckpointError

    def refuse(key: str):
        raise CheckpointError(message)

    st.session_state["lang"] = "zh"
    original, ui.sidebar.get_bundle = ui.sidebar.get_bundle, refuse  # the load fails as a bad checkpoint would
    try:
        assert ui.sidebar.model_picker() is None
    finally:
        ui.sidebar.get_bundle = original


def test_a_model_that_cannot_load_gets_a_translated_lead_line_and_the_one_liner():
    at = AppTest.from_function(
        _picker_with_failing_load, args=("config.json: n_layers = 1000000 exceeds the limit 24",), default_timeout=TIMEOUT
    )
    at.run()
    assert_no_exception(at)
    lead = _strip(catalog("zh")["sidebar.load_failed"])
    assert any(e.value.startswith(lead) for e in at.error) and any(e.value.startswith(lead) for e in at.sidebar.error)
    assert any("exceeds the limit 24" in c.value for c in at.code)


# ---- LayerNorm's batch of sentences: numbered from 2, every problem announced ------------------------


def test_layernorm_numbers_extra_sentences_from_2_and_announces_each_problem():
    at = AppTest.from_file(page_path("layernorm"), default_timeout=TIMEOUT)
    at.session_state["lang"] = "en"
    max_tokens = load_model("reverse").config.max_len - 1
    at.query_params.update(model="reverse", text="abc", more="ab\u0007c\n\U0001f600x\n" + "a" * (max_tokens + 9))
    at.run()
    assert_no_exception(at)
    shown = _messages(at)
    strings = catalog("en")
    assert strings["masks.line_controls"].format(n=2, k=1) in shown
    assert strings["masks.line_unknown"].format(n=3, k=1) in shown
    assert strings["masks.line_truncated"].format(n=4, total=max_tokens + 9, kept=max_tokens) in shown
    assert not any(m.startswith("Lines ") for m in shown + [c.value for c in at.caption])


def test_a_long_paragraph_folds_its_did_you_mean_list():
    """A 900-character paragraph of words the grammar lacks: three "did you mean" lines, the rest folded, so the
    first chart stays near the top of the page."""
    vocabulary = [w for w in get_task("translate-en-zh").source_vocabulary() if len(w) > 3]
    words = " ".join(f"{w}q" for w in vocabulary)[:900]  # each a typo of a word the grammar has
    at = _page(text=words, model="translate-en-zh")
    assert_no_exception(at)
    suggest = catalog("en")["input.suggest"].split("{word}")[0]
    shown = [c for c in at.main.caption if c.value.startswith(suggest)]
    folded = [e for e in at.expander if e.label.endswith(catalog("en")["input.more_suggestions"].split("}", 1)[1])]
    assert len(folded) == 1, [e.label for e in at.expander]
    outside = [c for c in shown if not any(c in e.caption for e in folded)]
    assert 1 <= len(outside) <= 3, len(outside)
