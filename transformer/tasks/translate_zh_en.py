"""`translate-zh-en`: Chinese → English on the same grammar as `translate-en-zh`, read the other way.

    Chinese:  SUBJECT [TIME] [在 PLACE] VERB OBJECT    我今天在图书馆读一本书  (spaces optional)
    English:  SUBJECT VERB OBJECT [PLACE] [TIME]      i read a book in the library today

A Chinese class can type Chinese. The source is segmented into lexicon words by greedy longest match
(`transformer.text.tokenizer.segment`), so "我今天在图书馆读一本书" and "我 今天 在 图书馆 读 一 本 书" are the same input.

What a model has to learn: the reverse reordering (time and place move to the end), dropping the
measure words and 的 that English does not have, English agreement the Chinese does not show
("他 读" → "he reads", "两 本 书" → "two books", "一 个 苹果" → "an apple").

One Chinese sentence, one English answer: where two English sentences make the same Chinese
("a book"/"one book" → 一 本 书, "tonight"/"this evening" → 今天 晚上, "a cup"/"a glass" of water
→ 一 杯 水), the English is the first in the lexicon's order ("a", "tonight", "cup"). The gold word
alignment is the English → Chinese one read backwards: each English word points at the first Chinese
word that translates it; words with no Chinese counterpart ("the", "of", "every" in "every day") at None.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from transformer.tasks import lexicon_zh as lex
from transformer.tasks.base import Example, without_punctuation
from transformer.tasks.english import EnglishLexicon, Sentence
from transformer.tasks.phrase import Phrase
from transformer.tasks.translate_zh import ADJECTIVE_PARTICLE, PLACE_WORD, EnglishToChinese
from transformer.tasks.words import Grammar, NotInGrammar, WordTask, _example
from transformer.text.tokenizer import segment

EN_ZH = EnglishToChinese()

Words = tuple[str, ...]


def _grouped(pairs: Iterable[tuple[str, object]]) -> dict[Words, list]:
    """Chinese phrase (as words) → its English choices, in lexicon order (the first is the canonical one)."""
    table: dict[Words, list] = {}
    for zh, en in pairs:
        table.setdefault(tuple(zh.split()), []).append(en)
    return table


_SUBJECTS = _grouped((s.zh, s.en) for s in lex.SUBJECTS)
_TIMES = _grouped((zh, en) for en, zh, _ in lex.TIMES)
_PLACES = _grouped((zh, f"{preposition} {noun_phrase}") for preposition, noun_phrase, zh in lex.PLACES)
_VERBS = _grouped((v.zh, v.en) for v in lex.VERBS)
_DETERMINERS = _grouped(
    [(zh, (en, False)) for en, zh in lex.SINGULAR_DETERMINERS.items()]
    + [(zh, (en, True)) for en, zh in lex.PLURAL_DETERMINERS.items()]
)
_CONTAINERS = _grouped((zh, en) for en, zh in lex.CONTAINERS.items())
_MASSES = _grouped((m.zh, m.en) for m in lex.MASSES)
_ADJECTIVES = _grouped((a.zh, a.en) for a in lex.ADJECTIVES)
_NOUNS = _grouped((n.zh, n.en) for n in lex.NOUNS)


def _prefixes(words: Words, at: int, table: dict[Words, list]) -> Iterator[tuple[object, int]]:
    """(English choice, end) for every phrase of `table` that `words` continue with at `at`."""
    for key, choices in table.items():
        if words[at : at + len(key)] == key:
            for choice in choices:
                yield choice, at + len(key)


def parse_chinese(words: Words) -> Iterator[Sentence]:
    """Every `Sentence` whose Chinese could be `words`, preferred ones first (agreement is not checked here).

    The caller renders each candidate with the English → Chinese grammar and keeps the first whose
    Chinese is `words` exactly.
    """
    for subject, after_subject in _prefixes(words, 0, _SUBJECTS):
        for time, after_time in [(None, after_subject), *_prefixes(words, after_subject, _TIMES)]:
            places = [(None, after_time)]
            if words[after_time : after_time + 1] == (PLACE_WORD,):
                places += list(_prefixes(words, after_time + 1, _PLACES))
            for place, after_place in places:
                for verb, after_verb in _prefixes(words, after_place, _VERBS):
                    for (determiner, plural), after_determiner in _prefixes(words, after_verb, _DETERMINERS):
                        for noun, adjective, container in _objects(words[after_determiner:]):
                            yield Sentence(subject, verb, determiner, noun, plural, adjective, container, place, time)


def _objects(rest: Words) -> Iterator[tuple[str, str | None, str | None]]:
    """(noun, adjective, container) for each way `rest` is a whole object after its number word."""
    for container, end in _prefixes(rest, 0, _CONTAINERS):
        for mass, after in _prefixes(rest, end, _MASSES):
            if after == len(rest):
                yield mass, None, container
    if len(rest) < 2:
        return
    body = rest[1:]  # after the measure word (checked by rendering)
    particle = (ADJECTIVE_PARTICLE,)
    adjectives = [(None, 0)] + [(a, end + 1) for a, end in _prefixes(body, 0, _ADJECTIVES) if body[end : end + 1] == particle]
    for adjective, start in adjectives:
        for noun, end in _prefixes(body, start, _NOUNS):
            if end == len(body):
                yield noun, adjective, None


def reversed_phrase(phrase: Phrase) -> Phrase:
    """An English → Chinese phrase turned around: Chinese source, English target, alignment inverted.

    English word i aligns to the first Chinese word aligned to it, or to None if none is.
    """
    first: dict[int, int] = {}
    for j, i in enumerate(phrase.alignment):
        if i is not None:
            first.setdefault(i, j)
    return Phrase(phrase.target, phrase.source, tuple(first.get(i) for i in range(len(phrase.source))))


@dataclass(frozen=True, kw_only=True)
class ChineseToEnglish(WordTask):
    """Chinese → English: the `translate-en-zh` grammar backwards, source segmented by its lexicon."""

    name: str = "translate-zh-en"
    description_en: str = (
        "Chinese to English on the same small grammar as the English-to-Chinese model. Time and place move "
        "from before the verb to the end, measure words and 的 disappear, and English must add what Chinese "
        "leaves out: 'reads' after 他, 'books' after 两 本, 'an' before 'apple'. Spaces between Chinese words are optional."
    )
    description_zh: str = (
        "在与英译中模型相同的小型语法上把中文翻译成英语。时间和地点从动词前移到句末，量词和“的”消失，"
        "英语还要补上中文没有标出的东西：他 之后用 reads，两 本 之后用 books，apple 前用 an。中文词之间的空格可有可无。"
    )
    segmented_source: bool = True

    def choose(self, rng: random.Random) -> Sentence:
        return EN_ZH.choose(rng)

    def render(self, sentence: Sentence) -> Phrase:
        """The Chinese of `sentence` with its canonical English (the first parse whose Chinese is the same)."""
        chinese = EN_ZH.render(sentence).target
        return reversed_phrase(self._canonical(chinese) or EN_ZH.render(sentence))

    def _canonical(self, words: Words) -> Phrase | None:
        for candidate in parse_chinese(words):
            try:
                phrase = EN_ZH.render(candidate)
            except NotInGrammar:
                continue
            if phrase.target == words:
                return phrase
        return None

    def reference(self, source: str) -> Example | None:
        """The English of a Chinese sentence of the grammar (spaces optional, punctuation ignored), or None."""
        phrase = self._canonical(tuple(self.split_source(source)))
        return None if phrase is None else _example(reversed_phrase(phrase))

    def split_source(self, text: str) -> list[str]:
        """Chinese words: whitespace-separated chunks, each segmented by the lexicon (longest match first)."""
        known = self._source_set
        return [piece for chunk in without_punctuation(text).lower().split() for piece in segment(chunk, known, self._longest)]

    def split_target(self, text: str) -> list[str]:
        return without_punctuation(text).lower().split()

    @cached_property
    def _source_set(self) -> frozenset[str]:
        return frozenset(self.source_vocabulary())

    @cached_property
    def _longest(self) -> int:
        return max(map(len, self._source_set))

    def grammar(self) -> Grammar:
        return EN_ZH.grammar()

    def english_lexicon(self) -> EnglishLexicon:
        return EN_ZH.english_lexicon()

    def source_words(self) -> Iterable[str]:
        return EN_ZH.target_words()

    def target_words(self) -> Iterable[str]:
        shadowed = {en for en, zh in lex.SINGULAR_DETERMINERS.items() if _DETERMINERS[(zh,)][0][0] != en}  # "one": 一 reads "a"
        return (w for w in EN_ZH.source_words() if w not in shadowed)
