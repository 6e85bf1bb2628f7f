"""`induction`: random symbols whose second half repeats the first, for a decoder-only model.

    a K q 7 x b a K q 7 x b        (six distinct random symbols, then the same six again)

The first half is unpredictable (the loss there stays near ln(62)); the second half is predictable
only by copying: at every repeated symbol, find where it occurred before and predict the symbol that
followed it. A two-layer model learns this with an *induction head* (Olsson et al., 2022): a layer-0
head attends to the previous token, so each position knows its predecessor, and a layer-1 head
attends from the current symbol to the position right after its earlier occurrence.

Example format: `source` = the first half plus the first repeated symbol ("aKq7xba"), `target` = the
rest of the repeat ("Kq7xb"); the trainer's loss covers the whole sequence (a plain language model).
The first repeated symbol is in the prompt because nothing can predict where the repeat starts.

Training sequences may start with a short unrepeated lead-in of other random symbols ("Zt" in
"ZtaKq7xbaKq7xb"). Without it every repeat starts exactly at the middle, and a first model solved the
task by position instead: its layer-0 heads read position q/2 (which holds the pair of symbols that a
position q in the repeat needs), not the previous token, and its "induction" generalised to nothing else.
With the repeat at varying offsets only the textbook circuit works everywhere. The card and the tests
measure on pure repeats (no lead-in), as the heads page does.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import ClassVar

from transformer.tasks.base import Example, Level, Task
from transformer.tasks.decoder_only import DecoderOnlyTask
from transformer.text.prompt import PromptFormat

ALPHABET = string.ascii_letters + string.digits  # 62 symbols, one character each: easy to type in the app


@dataclass(frozen=True, kw_only=True)
class InductionTask(DecoderOnlyTask, Task):
    """Repeated random sequences.

    Attributes:
        min_half / max_half: length range of the random half.
        max_lead: longest unrepeated lead-in (its length is uniform in 0..max_lead; 0: pure repeats).
    """

    prompt_format: ClassVar[PromptFormat] = PromptFormat(suffix=(), loss_on_prompt=True, end_with_eos=False)
    name: str = "induction"
    level: Level = "char"
    min_half: int = 2
    max_half: int = 24
    max_lead: int = 10
    description_en: str = (
        "Random symbols whose second half repeats the first. The first half cannot be predicted; the "
        "repeat can, by an induction head: find where the current symbol occurred before and copy what came next."
    )
    description_zh: str = (
        "随机符号序列，后半段重复前半段。前半段无法预测；重复部分可以靠“归纳头”预测："
        "找到当前符号上一次出现的位置，复制它后面的那个符号。"
    )

    def __post_init__(self) -> None:
        if not 2 <= self.min_half <= self.max_half or self.max_lead < 0 or self.max_half + self.max_lead > len(ALPHABET):
            raise ValueError(
                f"need 2 <= min_half <= max_half, max_lead >= 0 and max_half + max_lead <= {len(ALPHABET)}, "
                f"got {self.min_half}, {self.max_half}, {self.max_lead}"
            )

    def sample(self, rng: random.Random) -> Example:
        half, lead = rng.randint(self.min_half, self.max_half), rng.randint(0, self.max_lead)
        symbols = "".join(rng.sample(ALPHABET, lead + half))  # all distinct: each repeated symbol occurred once before
        return _example(symbols + symbols[lead], lead, half)

    def reference(self, source: str) -> Example | None:
        """The rest of the repeat for text `lead + h + h[:k]` (all of lead + h distinct, len(h) >= 2,
        1 <= k < len(h)), else None."""
        seen: dict[str, int] = {}
        for m, symbol in enumerate(source):
            if symbol in seen:  # the first repeated symbol: the repeat starts here, h starts at its first occurrence
                lead, half = seen[symbol], m - seen[symbol]
                k = len(source) - m
                if half >= 2 and k < half and source[m:] == source[lead : lead + k]:
                    return _example(source, lead, half)
                return None
            seen[symbol] = m
        return None

    @property
    def max_len(self) -> int:
        """The longest sequence trained on, in symbols (lead-in and both halves): the input help's length."""
        return self.max_lead + 2 * self.max_half

    def source_vocabulary(self) -> tuple[str, ...]:
        return tuple(sorted(ALPHABET))

    def target_vocabulary(self) -> tuple[str, ...]:
        return self.source_vocabulary()


def _example(source: str, lead: int, half: int) -> Example:
    """`source` = lead + h + h[:k]; the target is h[k:], each symbol aligned to its first occurrence."""
    k = len(source) - lead - half
    return Example(source, source[lead + k : lead + half], tuple(range(lead + k, lead + half)))
