"""Tokenizer options the tasks need: ignored sentence punctuation, lexicon segmentation, grapheme clusters."""

from __future__ import annotations

import pytest

from transformer.tasks import get_task
from transformer.text.tokenizer import SENTENCE_PUNCTUATION, Tokenizer, WordTokenizer, segment
from transformer.training.train import task_with_options, tokenizers_for

LEXICON = ["我", "我们", "今天", "在", "图书馆", "读", "一", "本", "书", "的", "老师"]


def test_ignored_punctuation_is_dropped_unless_the_vocabulary_has_it():
    tok = WordTokenizer(["i", "read", "?"], ignored=SENTENCE_PUNCTUATION)
    assert tok.tokenize("I read. I read, i read！") == ["i", "read", "i", "read", "i", "read"]
    assert tok.tokenize("read?") == ["read", "?"]  # in the vocabulary: kept
    assert tok.tokenize("read :") == ["read", ":"]  # not a sentence mark: still reported as unknown
    assert WordTokenizer(["i"]).tokenize("i.") == ["i", "."]  # without the option nothing changes


def test_segmentation_splits_runs_by_longest_match():
    tok = WordTokenizer(LEXICON, segment=True, ignored=SENTENCE_PUNCTUATION)
    expected = ["我们", "的", "老师", "今天", "在", "图书馆", "读", "一", "本", "书"]
    assert tok.tokenize("我们的老师今天在图书馆读一本书。") == expected
    assert tok.tokenize("我 读 书") == tok.tokenize("我读书") == ["我", "读", "书"]
    assert tok.tokenize("我很好读书") == ["我", "很好", "读", "书"]
    assert tok.unknown("我很好") == ["很好"]
    assert segment("", frozenset(LEXICON), 3) == []


@pytest.mark.parametrize("options", [{"ignored": SENTENCE_PUNCTUATION}, {"segment": True}, {"ignored": "。", "segment": True}])
def test_options_survive_a_round_trip(options):
    tok = WordTokenizer(LEXICON, **options)
    again = Tokenizer.from_dict(tok.to_dict())
    assert isinstance(again, WordTokenizer) and again.to_dict() == tok.to_dict()
    assert again.tokenize("我们读书。") == tok.tokenize("我们读书。")


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="options"):
        Tokenizer.from_dict({"level": "char", "vocab": ["<pad>", "<bos>", "<eos>", "<unk>"], "options": {"segment": True}})


def test_each_task_gets_the_tokenizers_its_reference_agrees_with():
    zh_source, _ = tokenizers_for(get_task("translate-zh-en"))
    assert zh_source.segment and zh_source.ignored == SENTENCE_PUNCTUATION
    en_source, en_target = tokenizers_for(get_task("translate-en-zh"))
    assert not en_source.segment and en_source.ignored == SENTENCE_PUNCTUATION and not en_target.ignored
    chars, _ = tokenizers_for(get_task("reverse"))
    assert chars.graphemes


def test_task_options_change_a_task_field_and_refuse_unknown_ones():
    short = task_with_options(get_task("reverse"), {"max_len": 12})
    assert short.max_len == 12 and short.name == "reverse"
    assert task_with_options(get_task("reverse"), {}) is get_task("reverse")
    with pytest.raises(ValueError, match="no option"):
        task_with_options(get_task("reverse"), {"colour": "red"})
