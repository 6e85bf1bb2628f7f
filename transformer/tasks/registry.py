"""The registered tasks by name (`get_task`), in a module of their own so that describe.py can look a
model's task up without importing the package that re-exports describe.py (an import circle)."""

from __future__ import annotations

from transformer.tasks.base import Task
from transformer.tasks.chars import CopyTask, ReverseTask, SortTask
from transformer.tasks.corpus import EN_ZH, ZH_EN
from transformer.tasks.decoder_only import GptEnglishToChinese
from transformer.tasks.decoder_only_natural import GPT_EN_ZH
from transformer.tasks.induction import InductionTask
from transformer.tasks.translate_fr import EnglishToFrench
from transformer.tasks.translate_zh import EnglishToChinese
from transformer.tasks.translate_zh_en import ChineseToEnglish

TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        CopyTask(),
        ReverseTask(),
        SortTask(),
        EnglishToChinese(),
        EnglishToFrench(),
        ChineseToEnglish(),
        GptEnglishToChinese(),
        InductionTask(),
        EN_ZH,
        ZH_EN,
        GPT_EN_ZH,
    )
}


def get_task(name: str) -> Task:
    """The registered task called `name`.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; known tasks: {', '.join(TASKS)}") from None
