"""Toy tasks to train and probe the Transformer on, each a seeded generator with a held-out split.

    from transformer.tasks import get_task
    task = get_task("translate-en-zh")
    train = task.examples(10_000, "train", seed=0)
    heldout = task.examples(500, "heldout", seed=0)   # sources never seen in any training set
    vocab = task.source_vocabulary()                   # sorted: a deterministic tokenizer vocabulary
    task.reference("i read a book in the library today")  # right output + alignment, or None

For the pages (pure data, no prose): `diagnose(task, text)` says why a sentence is outside a translator's
grammar and gives the nearest one; `describe_grammar(task)` lists its patterns and lexicon by category
(names in English and Chinese); `random_sentence(task, seed)` draws a held-out example;
`input_description(task, card)` says what a model reads; `length_warning(card, task, text)` flags input
longer than the model was trained on.

Character tasks (copy, reverse, sort) have a known right answer for cross-attention: the alignment.
The translation tasks use small synthetic grammars whose every sentence has a correct translation.
"""

from __future__ import annotations

from transformer.tasks.base import HELDOUT_MODULUS, Example, Level, Split, Task, is_heldout
from transformer.tasks.chars import (
    COMMON_HANZI,
    HANZI,
    LEVEL_ONE_HANZI,
    LEVEL_TWO_HANZI,
    CharTask,
    CopyTask,
    ReverseTask,
    SortTask,
)
from transformer.tasks.decoder_only import DecoderOnlyTask, GptEnglishToChinese, is_decoder_only
from transformer.tasks.describe import (
    GrammarDescription,
    InputDescription,
    LengthWarning,
    describe_grammar,
    input_description,
    length_warning,
    model_input_description,
    presentable,
    random_sentence,
)
from transformer.tasks.diagnosis import Diagnosis, Problem, diagnose
from transformer.tasks.english import Sentence
from transformer.tasks.induction import InductionTask
from transformer.tasks.phrase import Phrase
from transformer.tasks.registry import TASKS, get_task
from transformer.tasks.translate_fr import EnglishToFrench
from transformer.tasks.translate_zh import EnglishToChinese
from transformer.tasks.translate_zh_en import ChineseToEnglish
from transformer.tasks.words import Grammar, NotInGrammar, WordTask

__all__ = [
    "COMMON_HANZI",
    "HANZI",
    "HELDOUT_MODULUS",
    "LEVEL_ONE_HANZI",
    "LEVEL_TWO_HANZI",
    "TASKS",
    "CharTask",
    "ChineseToEnglish",
    "CopyTask",
    "DecoderOnlyTask",
    "Diagnosis",
    "EnglishToChinese",
    "EnglishToFrench",
    "Example",
    "GptEnglishToChinese",
    "Grammar",
    "GrammarDescription",
    "InductionTask",
    "InputDescription",
    "LengthWarning",
    "Level",
    "NotInGrammar",
    "Phrase",
    "Problem",
    "ReverseTask",
    "Sentence",
    "SortTask",
    "Split",
    "Task",
    "WordTask",
    "describe_grammar",
    "diagnose",
    "get_task",
    "input_description",
    "is_decoder_only",
    "is_heldout",
    "length_warning",
    "model_input_description",
    "presentable",
    "random_sentence",
]
