"""The natural translators' task: tokenizers that read everyday text, the corpus's references, the dictionary check."""

from __future__ import annotations

import random

import pytest

from transformer.tasks import get_task
from transformer.tasks.cedict import covering_glosses, lemmas
from transformer.tasks.chars import LEVEL_ONE_HANZI
from transformer.text.tokenizer import UNK, SubwordTokenizer, Tokenizer, word_pieces

EVERYDAY_ENGLISH = [
    "The animal didn't cross the street because it was too tired.",
    "My friend likes green tea, but I prefer coffee!",
    "Yesterday we watched a film about 3 dogs and 12 cats; it was unbelievable.",
    "Could you tell me where the nearest hospital is?",
    'She\'s been learning Chinese since 2019 — "slowly", she says.',
]
EVERYDAY_CHINESE = [
    "我昨天和朋友去看电影。",
    "你今天晚上想吃什么？",
    "她说：“我很累，不想出去。”",
    "张老师在教室里看书，学生们在写字。",
]


@pytest.fixture(scope="module")
def en_zh():
    return get_task("en-zh")


@pytest.mark.parametrize("text", EVERYDAY_ENGLISH)
def test_english_pieces_read_everyday_text_without_unk_and_round_trip(en_zh, text: str) -> None:
    english, _ = en_zh.tokenizers()
    assert UNK not in english.tokenize(text) and english.unknown(text) == []
    assert english.decode(english.encode(text)) == text


def test_every_common_chinese_character_is_known_and_text_round_trips(en_zh) -> None:
    _, chinese = en_zh.tokenizers()
    assert chinese.unknown(LEVEL_ONE_HANZI) == []
    for text in EVERYDAY_CHINESE:
        assert chinese.decode(chinese.encode(text)) == text and UNK not in chinese.tokenize(text)


def test_a_character_it_never_saw_is_named_as_unknown(en_zh) -> None:
    english, _ = en_zh.tokenizers()
    assert english.unknown("I love 🦙 llamas") == ["🦙"]
    assert english.decode(english.encode("I love 🦙")) == f"I love {UNK}"


def test_subword_tokenizer_survives_its_checkpoint_format(en_zh) -> None:
    english, _ = en_zh.tokenizers()
    again = Tokenizer.from_dict(english.to_dict())
    assert isinstance(again, SubwordTokenizer) and again.vocab == english.vocab
    assert again.tokenize(EVERYDAY_ENGLISH[0]) == english.tokenize(EVERYDAY_ENGLISH[0])
    data = english.to_dict()
    with pytest.raises(ValueError, match="differs"):
        Tokenizer.from_dict({**data, "vocab": [*data["vocab"][:-1], "zzz-not-a-piece"]})
    with pytest.raises(ValueError, match="could not be read"):
        Tokenizer.from_dict({**data, "model": {"model": "nonsense"}})
    with pytest.raises(ValueError, match="model"):
        Tokenizer.from_dict({**data, "model": "a string"})


def test_word_pieces_show_how_a_word_is_split(en_zh) -> None:
    english, _ = en_zh.tokenizers()
    pieces = word_pieces(english, "unbelievable tea")
    assert pieces[-1] == "tea" and "·" in pieces[0] and pieces[0].replace("·", "") == "unbelievable"


def test_references_come_from_the_corpus_and_the_split_is_the_files(en_zh) -> None:
    zh_en = get_task("zh-en")
    held = en_zh.examples(50, "heldout", seed=1)
    assert len({e.source for e in held}) == 50 and all(en_zh.is_heldout(e.source) for e in held)
    example = held[0]
    assert example.target in en_zh.references(example.source)
    assert en_zh.reference("  " + example.source + " ").target == example.target  # spacing is normalised
    assert en_zh.reference("a sentence nobody ever wrote into tatoeba, surely") is None
    train = zh_en.examples(50, "train", seed=1)
    assert not any(zh_en.is_heldout(e.source) for e in train)
    pair = zh_en.sample(random.Random(3))
    assert not zh_en.is_heldout(pair.source) and pair.target in zh_en.references(pair.source)


def test_dictionary_glosses_match_inflected_english() -> None:
    assert "like" in lemmas("likes") and "city" in lemmas("cities") and "read" in lemmas("reading")
    assert {"friend"} <= covering_glosses("我的朋友喜欢绿茶。", 2)
    assert {"green", "tea"} <= covering_glosses("我的朋友喜欢绿茶。", 7)
    assert not covering_glosses("。", 0)


def test_placeholder_pairs_are_never_offered_to_a_class():
    """The data package stands in "placeholder" (or "placeholder-p13") for some English: the random-sentence button
    and the masks page's batch never offer one, while the corpus keeps them (the shipped models' commands reproduce)."""
    from runs.sentence_batch import default_more
    from transformer.storage.registry import load_model
    from transformer.tasks import presentable, random_sentence
    from transformer.tasks.corpus import EN_ZH, ZH_EN, CorpusPair, read_pairs

    junk = [p for p in read_pairs() if p.is_placeholder]
    assert junk and all("placeholder" in p.en.lower() for p in junk)
    assert not CorpusPair("我们走吧。", "Let's go.", False).is_placeholder
    for task, model in ((EN_ZH, "en-zh"), (ZH_EN, "zh-en")):
        heldout = task.examples(100_000, "heldout", seed=0)
        assert not all(presentable(e) for e in heldout)  # the corpus still holds them
        drawn = [random_sentence(task, seed) for seed in range(300)]
        assert all(presentable(e) for e in drawn) and len({e.source for e in drawn}) > 250
        bundle = load_model(model)
        for source in [bundle.card["example"], *(e.source for e in heldout[:40])]:  # the card's: the page's default
            assert "placeholder" not in default_more(source, bundle.source_tokenizer, task).lower()
