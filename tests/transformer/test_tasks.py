"""The toy tasks: seeded, split cleanly into train and held-out, and right about every answer."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import string
import unicodedata

import pytest

from transformer.tasks import (
    COMMON_HANZI,
    HANZI,
    LEVEL_ONE_HANZI,
    LEVEL_TWO_HANZI,
    TASKS,
    CharTask,
    CopyTask,
    Example,
    NotInGrammar,
    Sentence,
    SortTask,
    Task,
    WordTask,
    get_task,
    is_heldout,
    lexicon_fr,
    lexicon_zh,
)
from transformer.tasks.chars import CHINESE_PUNCTUATION, UNKNOWN_SYMBOLS
from transformer.tasks.english import english_plural, english_third_person

CHAR_TASKS = ["copy", "reverse", "sort"]
WORD_TASKS = ["translate-en-zh", "translate-en-fr"]


def _sample(task: Task, n: int, seed: int = 0) -> list[Example]:
    rng = random.Random(seed)
    return [task.sample(rng) for _ in range(n)]


@pytest.fixture(scope="module")
def word_samples() -> dict[str, list[Example]]:
    return {name: _sample(TASKS[name], 15_000) for name in WORD_TASKS}  # enough to use every word


# --- registry ---------------------------------------------------------------------------------------


def test_registry_has_the_tasks_under_their_names():
    assert list(TASKS) == [
        "copy",
        "reverse",
        "sort",
        "translate-en-zh",
        "translate-en-fr",
        "translate-zh-en",
        "gpt-translate-en-zh",
        "induction",
        "en-zh",
        "zh-en",
        "gpt-en-zh",
    ]
    for name, task in TASKS.items():
        assert task.name == name
        assert get_task(name) is task
        assert task.level == ("char" if name in (*CHAR_TASKS, "induction", "zh-en") else "word")  # zh-en reads characters
        assert task.description_en and task.description_zh
        assert re.search(r"[\u4e00-\u9fff]", task.description_zh)


def test_unknown_task_name_lists_the_known_ones():
    with pytest.raises(ValueError) as info:
        get_task("translate-en-de")
    for name in TASKS:
        assert name in str(info.value)


# --- determinism and splits -------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(TASKS))
def test_examples_are_deterministic_given_the_seed(name):
    task = TASKS[name]
    assert task.examples(200, "train", seed=7) == task.examples(200, "train", seed=7)
    assert task.examples(20, "heldout", seed=7) == task.examples(20, "heldout", seed=7)
    assert task.examples(200, "train", seed=7) != task.examples(200, "train", seed=8)
    assert task.examples(50, "train", seed=7)[:10] != task.examples(50, "heldout", seed=7)[:10]


@pytest.mark.parametrize("name", list(TASKS))
def test_train_and_heldout_are_disjoint(name):
    task = TASKS[name]
    train = task.examples(3000, "train", seed=1)
    heldout = task.examples(200, "heldout", seed=1)
    assert not {e.source for e in train} & {e.source for e in heldout}
    assert all(task.is_heldout(e.source) for e in heldout)  # the task's own split rule (a corpus: its file's)
    assert not any(task.is_heldout(e.source) for e in train)
    assert len({e.source for e in heldout}) > 150  # varied, not one sentence over and over


@pytest.mark.parametrize("name", list(TASKS))
def test_about_one_in_twenty_sources_is_heldout(name):
    share = sum(is_heldout(e.source) for e in _sample(TASKS[name], 4000)) / 4000
    assert 0.035 < share < 0.065


def test_examples_reject_bad_arguments_and_empty_splits():
    task = TASKS["copy"]
    assert task.examples(0, "train", seed=0) == []
    with pytest.raises(ValueError, match="split"):
        task.examples(3, "test", seed=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        task.examples(-1, "train", seed=0)
    # A tiny space (one-character strings) still has held-out members, so the draw ends.
    tiny = CopyTask(min_len=1, max_len=1)
    heldout = tiny.examples(20, "heldout", seed=0)
    assert all(len(e.source) == 1 and is_heldout(e.source) for e in heldout)


# --- character tasks --------------------------------------------------------------------------------


def test_common_hanzi_are_distinct_cjk_and_cover_the_demo_phrases():
    assert len(COMMON_HANZI) == len(set(COMMON_HANZI))
    assert 400 <= len(COMMON_HANZI) <= 550
    assert all("\u4e00" <= c <= "\u9fff" and unicodedata.name(c).startswith("CJK UNIFIED IDEOGRAPH") for c in COMMON_HANZI)
    for phrase in ["你好世界", "我爱学习", "中国", "人工智能", "注意力机制", "王伟", "李娜", "张静", "刘洋", "陈明"]:
        assert set(phrase) <= set(COMMON_HANZI), phrase


def test_the_two_levels_of_the_general_standard_table_are_shipped_whole():
    """3,500 + 3,000 distinct characters (Unihan kTGH 1-3500 and 3501-6500), disjoint, with the name characters."""
    assert len(LEVEL_ONE_HANZI) == len(set(LEVEL_ONE_HANZI)) == 3500
    assert len(LEVEL_TWO_HANZI) == len(set(LEVEL_TWO_HANZI)) == 3000
    assert not set(LEVEL_ONE_HANZI) & set(LEVEL_TWO_HANZI)
    assert LEVEL_ONE_HANZI[:3] == "一乙二" and LEVEL_TWO_HANZI[:3] == "乂乜兀"  # the table's own order
    assert set("梓睿宸萱覃") <= set(LEVEL_TWO_HANZI) and "闫" not in LEVEL_ONE_HANZI + LEVEL_TWO_HANZI  # 闫 is level 3
    assert all(unicodedata.name(c).startswith("CJK UNIFIED IDEOGRAPH") for c in LEVEL_ONE_HANZI + LEVEL_TWO_HANZI)


@pytest.mark.parametrize("name", CHAR_TASKS)
def test_char_alphabet_is_sorted_unique_and_complete(name):
    vocab = TASKS[name].source_vocabulary()
    assert list(vocab) == sorted(set(vocab))
    marks = CHINESE_PUNCTUATION
    assert set(vocab) == set(string.ascii_letters + string.digits + string.punctuation + " " + HANZI + marks)
    assert set(COMMON_HANZI) | set(LEVEL_ONE_HANZI) | set(LEVEL_TWO_HANZI) | {"闫"} == set(HANZI)
    assert set("张梓涵闫睿宸覃萱，。？！、；：“”‘’（）《》") <= set(vocab)
    assert not set(UNKNOWN_SYMBOLS) & set(vocab)  # the symbols drawn to teach <unk> are never in the alphabet
    assert TASKS[name].target_vocabulary() == vocab


def test_the_first_stages_alphabet_and_strings_are_still_drawn_by_their_options():
    """reverse's first three stages were trained on level 1 without Chinese marks or unknown symbols: their card
    commands pass these options and must get that alphabet (3,607 symbols) and those strings again."""
    first = dataclasses.replace(TASKS["reverse"], hanzi_levels=1, chinese_punctuation=False, unknown_share=0)
    vocab = first.source_vocabulary()
    assert len(vocab) == 3607 and set(vocab) == set(
        string.ascii_letters + string.digits + string.punctuation + " " + COMMON_HANZI + LEVEL_ONE_HANZI
    )
    strings = "".join(e.source for e in _sample(first, 300))
    assert set(strings) <= set(vocab)
    # 95 ASCII symbols, the 6,500 of levels 1 and 2 (the common hanzi outside level 1 are all level 2), 闫, 15 marks
    assert set(COMMON_HANZI) <= set(LEVEL_ONE_HANZI + LEVEL_TWO_HANZI)
    assert len(TASKS["reverse"].source_vocabulary()) == 95 + 6500 + 1 + len(CHINESE_PUNCTUATION) == 6611
    with pytest.raises(ValueError, match="hanzi_levels"):
        CopyTask(hanzi_levels=3)
    with pytest.raises(ValueError, match="unknown_share"):
        CopyTask(unknown_share=1.0)


def test_char_tasks_draw_unknown_symbols_and_reverse_them_in_place():
    task = TASKS["reverse"]
    symbols = [c for e in _sample(task, 3000) for c in e.source]
    unknown = sum(c in UNKNOWN_SYMBOLS for c in symbols) / len(symbols)
    assert 0.005 < unknown < 0.02  # unknown_share 0.01 of all characters
    marks = sum(c in CHINESE_PUNCTUATION for c in symbols) / len(symbols)
    assert 0.01 < marks < 0.05  # a tenth of the Chinese share
    assert task.reference("张😀涵").target == "涵😀张"


@pytest.mark.parametrize("name", CHAR_TASKS)
def test_char_targets_and_alignments_are_right(name):
    expected = {"copy": lambda s: s, "reverse": lambda s: s[::-1], "sort": lambda s: "".join(sorted(s))}[name]
    task = TASKS[name]
    vocab = set(task.source_vocabulary()) | set(UNKNOWN_SYMBOLS)
    for e in _sample(task, 2000):
        assert task.min_len <= len(e.source) <= task.max_len
        assert set(e.source) <= vocab
        assert e.target == expected(e.source)
        assert e.alignment is not None and sorted(e.alignment) == list(range(len(e.source)))
        assert all(e.target[j] == e.source[i] for j, i in enumerate(e.alignment))
        assert task.reference(e.source) == e


def test_char_alignments_have_the_expected_shapes():
    assert TASKS["copy"].reference("abc").alignment == (0, 1, 2)
    assert TASKS["reverse"].reference("abc").alignment == (2, 1, 0)
    sort = TASKS["sort"].reference("b a b")
    assert sort.target == "  abb" and sort.alignment == (1, 3, 2, 0, 4)  # stable: equal characters keep input order
    assert TASKS["reverse"].reference("") is None


def test_char_lengths_follow_the_settings():
    task = SortTask(min_len=5, max_len=8)
    assert {len(e.source) for e in _sample(task, 500)} == {5, 6, 7, 8}
    with pytest.raises(ValueError):
        CopyTask(min_len=0)
    with pytest.raises(ValueError):
        CopyTask(min_len=9, max_len=8)


def test_char_tasks_mix_chinese_heavy_and_ascii_heavy_strings():
    samples = [e.source for e in _sample(TASKS["copy"], 4000) if len(e.source) >= 8]
    hanzi_shares = [sum(c in HANZI for c in s) / len(s) for s in samples]
    chinese_heavy = sum(share > 0.4 for share in hanzi_shares) / len(samples)
    assert 0.4 < chinese_heavy < 0.6
    assert sum(" " in s for s in samples) > len(samples) / 2


def test_char_tasks_have_no_suggestions():
    assert TASKS["copy"].suggest("libary") == []
    assert isinstance(TASKS["copy"], CharTask)


# --- word tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WORD_TASKS)
def test_word_examples_are_well_formed(name, word_samples):
    task = TASKS[name]
    source_vocab, target_vocab = set(task.source_vocabulary()), set(task.target_vocabulary())
    for e in word_samples[name]:
        src, tgt = e.source.split(" "), e.target.split(" ")
        assert all(src) and all(tgt), e  # single spaces, no empty words
        assert 4 <= len(src) <= 15, e
        assert e.source == e.source.lower() and re.fullmatch(r"[a-z ]+", e.source), e
        assert set(src) <= source_vocab and set(tgt) <= target_vocab, e
        assert e.alignment is not None and len(e.alignment) == len(tgt)
        assert all(i is None or 0 <= i < len(src) for i in e.alignment), e


@pytest.mark.parametrize("name", WORD_TASKS)
def test_word_vocabularies_are_sorted_and_all_reachable(name, word_samples):
    task = TASKS[name]
    for vocab in (task.source_vocabulary(), task.target_vocabulary()):
        assert list(vocab) == sorted(set(vocab))
        assert all(re.fullmatch(r"\w+", w) for w in vocab)  # no apostrophes or hyphens: one token per word
    seen_source = {w for e in word_samples[name] for w in e.source.split()}
    seen_target = {w for e in word_samples[name] for w in e.target.split()}
    assert not set(task.source_vocabulary()) ^ seen_source  # the vocabulary is exactly what sentences use
    assert not set(task.target_vocabulary()) ^ seen_target


@pytest.mark.parametrize("name", WORD_TASKS)
def test_a_source_always_gets_the_same_translation_and_parses_back(name, word_samples):
    task = TASKS[name]
    translations: dict[str, str] = {}
    for e in word_samples[name]:
        assert translations.setdefault(e.source, e.target) == e.target, e.source
    for e in word_samples[name][:2000]:
        assert task.reference(e.source) == e


@pytest.mark.parametrize("name", WORD_TASKS)
def test_english_articles_and_verb_agreement(name, word_samples):
    lexicon = lexicon_zh if name.endswith("zh") else lexicon_fr
    for e in word_samples[name][:3000]:
        words = e.source.split()
        for before, after in itertools.pairwise(words):
            if before in ("a", "an"):
                assert before == ("an" if after[0] in "aeiou" else "a"), e.source
        subject = next(s for s in lexicon.SUBJECTS if e.source.startswith(s.en + " "))
        rest = e.source[len(subject.en) + 1 :]
        verb = next(v.en for v in lexicon.VERBS if rest.startswith((v.en + " ", english_third_person(v.en) + " ")))
        assert rest.startswith((english_third_person(verb) if subject.person == "3s" else verb) + " "), e.source


@pytest.mark.parametrize(
    ("source", "target", "alignment"),
    [
        ("i read a book in the library today", "我 今天 在 图书馆 读 一 本 书", (0, 7, 4, 6, 1, 2, None, 3)),
        ("he reads two books", "他 读 两 本 书", (0, 1, 2, None, 3)),
        ("she drives a red car", "她 开 一 辆 红色 的 车", (0, 1, 2, None, 3, None, 4)),
        ("my mother feeds three cats every day", "我 妈妈 每天 喂 三 只 猫", (0, 1, 6, 2, 3, None, 4)),
        ("we drink two cups of tea this morning", "我们 今天 早上 喝 两 杯 茶", (0, 6, 7, 1, 2, 3, 5)),
        ("the children see five sheep at the zoo", "孩子们 在 动物园 看见 五 只 羊", (1, 5, 7, 2, 3, None, 4)),
        ("my friend writes a letter at home", "我 的 朋友 在 家 写 一 封 信", (0, None, 1, 5, 6, 2, 3, None, 4)),
        ("tom has an expensive watch", "汤姆 有 一 块 昂贵 的 手表", (0, 1, 2, None, 3, None, 4)),
    ],
)
def test_hand_written_chinese_translations(source, target, alignment):
    assert TASKS["translate-en-zh"].reference(source) == Example(source, target, alignment)


@pytest.mark.parametrize(
    ("source", "target", "alignment"),
    [
        ("i see the white house", "je vois la maison blanche", (0, 1, 2, 4, 3)),
        ("i see the white horse", "je vois le cheval blanc", (0, 1, 2, 4, 3)),
        ("we see the white houses in the park", "nous voyons les maisons blanches dans le parc", (0, 1, 2, 4, 3, 5, 6, 7)),
        ("he eats a green apple", "il mange une pomme verte", (0, 1, 2, 4, 3)),
        ("my sister reads his french newspapers", "ma sœur lit ses journaux français", (0, 1, 2, 3, 5, 4)),
        ("they look for her black cat", "ils cherchent son chat noir", (0, 1, 3, 5, 4)),
        ("you drink two cups of tea at the market", "tu bois deux tasses de thé au marché", (0, 1, 2, 3, 4, 5, 6, 8)),
        (
            "paul washes this car at home every day",
            "paul lave cette voiture à la maison tous les jours",
            (0, 1, 2, 3, 4, None, 5, 6, None, 7),
        ),
    ],
)
def test_hand_written_french_translations(source, target, alignment):
    assert TASKS["translate-en-fr"].reference(source) == Example(source, target, alignment)


@pytest.mark.parametrize("name", WORD_TASKS)
def test_sentences_outside_the_grammar_have_no_reference(name):
    task = TASKS[name]
    for source in ["he read a book", "i read a car", "i read an book", "i read a book today in the library", "i libary", ""]:
        assert task.reference(source) is None, source
    assert task.reference("I  Read A Book") == task.reference("i read a book")
    assert isinstance(task, WordTask)
    with pytest.raises(NotInGrammar):
        task.render(Sentence(subject="i", verb="read", determiner="a", noun="car"))


@pytest.mark.parametrize("name", WORD_TASKS)
def test_suggest_finds_close_lexicon_words(name):
    task = TASKS[name]
    assert "library" in task.suggest("libary")
    assert "library" in task.suggest("Libary", k=1)
    assert task.unknown_symbols("I read a libary book") == ["libary"]
    assert task.is_valid_source("i read a book") and not task.is_valid_source("i read a libary")


def test_lexicons_have_the_promised_sizes():
    for lex in (lexicon_zh, lexicon_fr):
        assert len(lex.SUBJECTS) >= 15 and len(lex.VERBS) >= 30 and len(lex.NOUNS) >= 60
        assert len(lex.ADJECTIVES) >= 20 and len(lex.PLACES) >= 15 and len(lex.TIMES) >= 10
        for table in (lex.SUBJECTS, lex.VERBS, lex.NOUNS, lex.ADJECTIVES):
            names = [entry.en for entry in table]
            assert len(names) == len(set(names))


def test_french_words_never_need_elision():
    for noun in lexicon_fr.NOUNS:
        assert noun.fr[0] not in "aeiouyhâàéèêîôû", noun
    for verb in lexicon_fr.VERBS:
        assert verb.forms[0][0] not in "aeiouyhâàéèêîôû", verb  # "je" + form
    for mass in lexicon_fr.MASSES:
        assert mass.fr[0] not in "aeiouyhâàéèêîôû", mass  # "de" + mass


def test_english_inflection():
    assert [english_plural(w) for w in ["book", "box", "story", "child", "sheep", "knife", "police officer"]] == [
        "books",
        "boxes",
        "stories",
        "children",
        "sheep",
        "knives",
        "police officers",
    ]
    assert [english_third_person(w) for w in ["read", "watch", "carry", "have", "buy", "look for"]] == [
        "reads",
        "watches",
        "carries",
        "has",
        "buys",
        "looks for",
    ]
