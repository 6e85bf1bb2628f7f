"""The natural English → Chinese pairs as prompts for a decoder-only model: `English = 中文`.

`en-zh` trains the paper's encoder-decoder on the corpus; this task writes each pair as one sequence for a
decoder-only model (the shipped one is of today's architecture: rotary positions, grouped-query attention, RMSNorm,
SwiGLU; `transformer.tasks.recipes`), with the loss on the Chinese only, as `gpt-translate-en-zh` does on the
grammar:

    <bos> She came to see us yesterday . = 她 昨 天 来 看 我 们 了 。 <eos>

One model reads and writes one sequence, so it has one tokenizer for both languages: byte-pair pieces of English
(trained on the training sentences, as `en-zh`'s are) and every Chinese character a piece of its own (split off
before the pieces are learnt, so none is merged with its neighbours and the Chinese is read character by
character, as `en-zh`'s decoder writes it).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from transformer.tasks.chars import LEVEL_ONE_HANZI
from transformer.tasks.corpus import _ALPHABET, _CHINESE_PUNCTUATION, ENGLISH_PIECES, MAX_EN_WORDS, NaturalTranslation
from transformer.tasks.decoder_only import SEPARATOR, DecoderOnlyTask
from transformer.text.prompt import PromptFormat
from transformer.text.tokenizer import SPECIALS, SubwordTokenizer, Tokenizer

CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef，。？！、；：“”‘’（）《》「」…—·]"
"""Chinese characters and punctuation: each split off as a piece of its own before the English pieces are learnt."""


def bilingual_tokenizer(english: list[str], chinese: list[str]) -> SubwordTokenizer:
    """English byte-pair pieces and Chinese characters in one `tokenizers` pipeline (deterministic for the lists)."""
    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers
    from tokenizers import Tokenizer as HfTokenizer

    chars = dict.fromkeys(ch for s in chinese for ch in unicodedata.normalize("NFC", s) if not ch.isspace())
    alphabet = sorted({*_ALPHABET, *LEVEL_ONE_HANZI, *_CHINESE_PUNCTUATION, *chars} - {" "})
    model = HfTokenizer(models.BPE(unk_token=SPECIALS[3]))
    model.normalizer = normalizers.NFC()
    model.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(CJK), behavior="isolated"),  # each Chinese character alone
            pre_tokenizers.Metaspace(prepend_scheme="never"),  # "▁" marks a space (none before Chinese)
            pre_tokenizers.Punctuation(),
        ]
    )
    model.decoder = decoders.Metaspace(prepend_scheme="never")
    trainer = trainers.BpeTrainer(
        vocab_size=ENGLISH_PIECES + len(alphabet),
        special_tokens=list(SPECIALS),
        initial_alphabet=alphabet,
        limit_alphabet=len(alphabet) + 1,
        show_progress=False,
    )
    model.train_from_iterator([*english, *chinese], trainer)
    return SubwordTokenizer(model)


@dataclass(frozen=True, kw_only=True)
class GptNaturalEnglishToChinese(DecoderOnlyTask, NaturalTranslation):
    """`en-zh`'s pairs written as `English = 中文` and completed by a decoder-only model."""

    prompt_format: ClassVar[PromptFormat] = PromptFormat(suffix=(SEPARATOR,), loss_on_prompt=False, end_with_eos=True)
    name: str = "gpt-en-zh"
    level: str = "word"  # type: ignore[assignment]  (max_len counts English words, as en-zh's does)
    direction: str = "en-zh"  # type: ignore[assignment]
    max_len: int = MAX_EN_WORDS
    description_en: str = (
        "Everyday English → Chinese for a decoder-only model of today's architecture (rotary positions, grouped-query "
        "attention, RMSNorm, SwiGLU): one sequence 'English = 中文' over the Tatoeba and HSK pairs, completed after '='."
    )
    description_zh: str = (
        "面向当今架构（旋转位置编码、分组查询注意力、RMSNorm、SwiGLU）纯解码器模型的日常英译中：在 Tatoeba 和 HSK "
        "句对上写成一句“English = 中文”，在“=”之后续写。"
    )

    @cached_property
    def _shared(self) -> SubwordTokenizer:
        train = [p for p in self.pairs if not p.heldout]
        return bilingual_tokenizer([p.en for p in train], [p.zh for p in train])

    def tokenizers(self) -> tuple[Tokenizer, Tokenizer]:
        """One tokenizer for the prompt and the completion (the model reads and writes one sequence)."""
        return self._shared, self._shared


GPT_EN_ZH = GptNaturalEnglishToChinese()
