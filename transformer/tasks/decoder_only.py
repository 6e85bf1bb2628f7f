"""Tasks for decoder-only (GPT-style) models: the prompt and its completion in one sequence.

A `DecoderOnlyTask` is an ordinary `Task` (same examples, same reference, same held-out split) that
also says how its examples are laid out for a decoder-only model (`prompt_format`) and which symbols
that model's one shared vocabulary needs (`vocabulary`). The trainer builds a decoder-only model for it.

    gpt-translate-en-zh:  <bos> i read a book = 我 读 一 本 书 <eos>     (loss on the Chinese only)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from transformer.tasks.translate_zh import EnglishToChinese
from transformer.text.prompt import PromptFormat

SEPARATOR = "="


class DecoderOnlyTask:
    """Mixin for a `Task` trained as one sequence `prompt suffix completion` by a decoder-only model."""

    architecture: ClassVar[str] = "decoder-only"
    prompt_format: ClassVar[PromptFormat] = PromptFormat()

    def vocabulary(self: Any) -> tuple[str, ...]:
        """Source, target and suffix symbols in one sorted vocabulary (a decoder-only model reads and
        writes the same sequence)."""
        return tuple(sorted({*self.source_vocabulary(), *self.target_vocabulary(), *self.prompt_format.suffix}))


def is_decoder_only(task: Any) -> bool:
    """Whether `task` is trained as a decoder-only language model (see `DecoderOnlyTask`)."""
    return getattr(task, "architecture", "encoder-decoder") == "decoder-only"


@dataclass(frozen=True, kw_only=True)
class GptEnglishToChinese(DecoderOnlyTask, EnglishToChinese):
    """`translate-en-zh` written as `english = 中文` and completed by a decoder-only model."""

    prompt_format: ClassVar[PromptFormat] = PromptFormat(suffix=(SEPARATOR,), loss_on_prompt=False, end_with_eos=True)
    name: str = "gpt-translate-en-zh"
    description_en: str = (
        "The translate-en-zh grammar for a GPT-style decoder-only model: one sequence 'english = 中文', "
        "completed after the '='. With no encoder, the Chinese words attend back to the English prompt "
        "through masked self-attention: cross-attention becomes self-attention over the prompt."
    )
    description_zh: str = (
        "与 translate-en-zh 相同的语法，交给 GPT 式的纯解码器模型：整句写成“english = 中文”，在“=”之后续写。"
        "没有编码器，中文词通过带掩码的自注意力回看英文提示：交叉注意力变成了对提示的自注意力。"
    )
