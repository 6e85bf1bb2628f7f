"""Each task's recipe in one place: how `python -m transformer train` trains it, what its card says, and how the
training page sizes it for a class.

    from transformer.tasks.recipes import RECIPES
    RECIPES["reverse"].train        # the flags `train --task reverse` uses where the command line is silent
    RECIPES["reverse"].lesson       # the training page's smaller version (None: not offered there)

Adding a shipped model touches its task, this table and the registry's test. The command line
(`transformer.cli.train`) and the training page (`runs.training.options`) derive their tables from it.
Shipped models are named after their task, so `counterpart` and `other_direction` name shipped models too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

_SMALL = {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "dropout": 0.0}
_NATURAL = {"n_layers": 3, "d_model": 192, "n_heads": 4, "d_ff": 768, "dropout": 0.1}
_MODERN = {
    "architecture": "decoder-only",
    "n_layers": 5,
    "d_model": 256,
    "n_heads": 8,
    "n_kv_heads": 2,
    "d_ff": 576,
    "dropout": 0.0,
    "max_len": 160,
    "norm_position": "pre",
    "positional": "rotary",
    "norm": "rmsnorm",
    "feed_forward": "swiglu",
    "qkv_bias": False,
    "out_bias": False,
    "ff_bias": False,
    "norm_eps": 1e-6,
    "scale_embeddings": False,
    "share_embeddings": True,
}
# Real sentences: a corpus of 57,000 pairs is seen many times over, so dropout is back (0.1); the paper's
# encoder-decoder at a size two CPU cores train in under an hour. Never stops early: exact match is not the measure.
_NATURAL_RECIPE = {
    "steps": 9000,
    "lr_factor": 1.0,
    "warmup": 1000,
    "eval_every": 1000,
    "target_exact": 2.0,
    "bf16": True,
    "config": _NATURAL,
}

# A lesson trains the character tasks on a small alphabet and short strings. The shipped `reverse` (up to 48
# characters of a 3,600-symbol alphabet) took 46 minutes in three stages: with thousands of symbols every step pays
# for a softmax over all of them and each symbol is seen rarely. On 36 symbols and strings of up to 8 (the probe
# "hello 世界" is 8), one torch thread on the busy shared 2-core machine: a step costs half the old preset's
# (10-11.6 vs 4.6-4.8 steps/s, same minutes), some cross-attention head puts half its weight on the anti-diagonal by
# step 300 and held-out exact match reaches 96 % by step 1,200; in the page's server, watched by a browser while a
# second session used the heads page, the worker kept 9.3 steps/s (benchmarks/README.md §11).
# tests/runs/test_lesson_preset.py holds the claims to step budgets.
LESSON_ALPHABET = "abcdefghijklmnopqrstuvwxyz 你好世界注意力中文"


@dataclass(frozen=True)
class Lesson:
    """How the training page trains a task in class: overrides of the recipe's flags (`preset`, with its own
    "config"), options of the task itself (`task_options`), and the longest training string (`max_len`)."""

    preset: Mapping[str, Any] = field(default_factory=dict)
    task_options: Mapping[str, Any] = field(default_factory=dict)
    max_len: int | None = None


@dataclass(frozen=True)
class Recipe:
    """One task's recipe. `train`: the flags `train --task T --out DIR` uses where the command line is silent (a
    "config" entry holds the model's); `summary`, `summary_zh`, `example`: the card's one-liners and an input a
    teacher can type; `gold_alignment`: how the task's word alignment is made (translators); `lesson`: the training
    page's version (None: not offered there); `counterpart`: the shipped model of the same data with the other
    architecture; `other_direction`: the shipped model translating the same data the other way round."""

    summary: str
    summary_zh: str
    example: str
    train: Mapping[str, Any]
    gold_alignment: str | None = None
    lesson: Lesson | None = None
    counterpart: str | None = None
    other_direction: str | None = None


# In the training page's order first (the tasks with a lesson), then the others.
_RECIPES: dict[str, Recipe] = {
    # Char tasks: pre-norm with a larger rate left the "unigram" plateau sooner than post-norm at 0.5. Dropout 0 (the
    # small models): the generators never repeat a batch, so there is nothing to overfit, and training is faster.
    "reverse": Recipe(
        "Reverses its input character by character (ASCII, the 6,500 level-1 and level-2 standard Chinese characters "
        "and Chinese punctuation, up to 48); an unknown symbol stays in place as <unk>.",
        "把输入逐字倒过来（ASCII、《通用规范汉字表》一级和二级字表的 6500 个汉字及中文标点，最长 48 个字符）；"
        "不认识的符号在原位置写作 <unk>。",
        "hello 世界",
        {"steps": 6000, "lr_factor": 1.0, "eval_every": 250, "config": {**_SMALL, "norm_position": "pre"}},
        # a held-out check every 100 steps: the early stop comes sooner
        lesson=Lesson({"steps": 2500, "eval_every": 100}, {"alphabet": LESSON_ALPHABET}, max_len=8),
    ),
    "copy": Recipe(
        "Copies its input character by character (ASCII and common Chinese).",
        "逐字复制输入（ASCII 和常用汉字）。",
        "attention 注意力",
        {"steps": 3000, "lr_factor": 1.0, "eval_every": 250, "config": {**_SMALL, "norm_position": "pre"}},
        lesson=Lesson(task_options={"alphabet": LESSON_ALPHABET}, max_len=12),
    ),
    "translate-en-zh": Recipe(
        "Translates a toy English grammar into Chinese (time and place phrases move before the verb).",
        "把玩具英语语法翻译成中文（时间和地点短语移到动词前）。",
        "i read a book in the library today",
        {"steps": 3000, "lr_factor": 0.5, "config": _SMALL},
        gold_alignment="each Chinese word → the English word it translates; measure words and 的 → none",
        lesson=Lesson(),
        counterpart="gpt-translate-en-zh",
        other_direction="translate-zh-en",
    ),
    "translate-en-fr": Recipe(
        "Translates a toy English grammar into French (adjectives follow the noun and agree with its gender).",
        "把玩具英语语法翻译成法语（形容词放在名词后，并与名词的性一致）。",
        "the girl reads a french book in the garden",
        {"steps": 3000, "lr_factor": 0.5, "config": _SMALL},
        gold_alignment="each French word → the English word it translates; French words with no English counterpart → none",
        lesson=Lesson(),
    ),
    # Decoder-only: one stack must both read the English and write the Chinese, so it gets three wider layers (about
    # the encoder-decoder's total depth); one vocabulary, so the embeddings are shared. The shipped model trained for
    # half an hour; a lesson's is two layers of 64 (the architecture, pre-norm and shared embeddings stay). Measured on
    # the 2-core machine under load (one thread, batch 64): 97 % held-out at step 250, 99 % (the early stop) at 500,
    # in 140 s.
    "gpt-translate-en-zh": Recipe(
        "A GPT-style decoder-only model that completes 'english =' with the Chinese translation (toy grammar).",
        "GPT 式纯解码器模型：在“english =”之后续写中文翻译（玩具语法）。",
        "i read a book in the library today",
        {
            "steps": 6000,
            "lr_factor": 1.0,
            "eval_every": 250,
            "config": {
                "architecture": "decoder-only",
                "n_layers": 3,
                "d_model": 128,
                "n_heads": 4,
                "d_ff": 512,
                "dropout": 0.0,
                "norm_position": "pre",
                "share_embeddings": True,
            },
        },
        lesson=Lesson({"steps": 2000, "config": {"n_layers": 2, "d_model": 64}}),
        counterpart="translate-en-zh",
        other_direction="translate-zh-en",
    ),
    # No label smoothing: the card compares plain cross-entropy on the two halves, and the repeat is exactly
    # predictable. Never stops early: the induction head keeps sharpening after the outputs are right. Learned
    # positions: with sinusoidal ones, two runs solved the repeat just as well but by position (layer 0 read fixed
    # offsets of 5-6 tokens, not the previous token), so no previous-token head showed. A lesson's halves are up to 8
    # symbols after a lead-in of up to 4 (still at varying offsets, so only the textbook previous-token + induction
    # circuit works): 80 % held-out at step 500, 98 % at 1,500 (191 s on the loaded 2-core machine).
    "induction": Recipe(
        "A two-layer decoder-only model that continues a repeated random sequence with an induction head.",
        "两层纯解码器模型：用归纳头续写重复的随机序列。",
        "aKq7xbN3aKq",
        {
            "steps": 3000,
            "lr_factor": 1.0,
            "eval_every": 500,
            "label_smoothing": 0.0,
            "target_exact": 2.0,
            "config": {"architecture": "decoder-only", **_SMALL, "norm_position": "pre", "positional": "learned"},
        },
        lesson=Lesson({"steps": 1500}, {"max_half": 8, "max_lead": 4}),
    ),
    "sort": Recipe(
        "Sorts its input's characters by Unicode code point.",
        "把输入的字符按 Unicode 码位排序。",
        "transformer",
        {"steps": 4000, "lr_factor": 0.5, "config": _SMALL},
    ),
    "translate-zh-en": Recipe(
        "Translates the toy grammar's Chinese into English (spaces optional; time and place move to the end).",
        "把玩具语法的中文翻译成英语（空格可有可无；时间和地点移到句末）。",
        "我今天在图书馆读一本书",
        {"steps": 3000, "lr_factor": 0.5, "config": _SMALL},
        gold_alignment=(
            "each English word → the first Chinese word aligned to it by translate-en-zh read backwards; "
            "English words with no Chinese counterpart (the, of, every) → none"
        ),
        other_direction="translate-en-zh",
    ),
    "en-zh": Recipe(
        "Translates everyday English into Chinese; trained on Tatoeba and HSK sentence pairs.",
        "把日常英语翻译成中文；在 Tatoeba 和 HSK 的真实句对上训练。",
        # a held-out pair the shipped model translates word for word, with a reordering (time before the verb)
        "She came to see us yesterday.",
        _NATURAL_RECIPE,
        other_direction="zh-en",
    ),
    "zh-en": Recipe(
        "Translates everyday Chinese into English; trained on Tatoeba and HSK sentence pairs.",
        "把日常中文翻译成英语；在 Tatoeba 和 HSK 的真实句对上训练。",
        # a held-out pair the shipped model translates word for word, with a reordering (next year moves to the end)
        "我打算明年出国。",
        _NATURAL_RECIPE,
        other_direction="en-zh",
    ),
    # Today's decoder-only architecture (Llama / Qwen: rotary positions, grouped-query attention with 2 key/value
    # heads for 8 query heads, RMSNorm, SwiGLU, no biases, tied embeddings) on en-zh's pairs as `English = 中文`
    # prompts (`transformer.tasks.decoder_only_natural`). Sized for the 25 MB a shipped model may take: 5 layers of
    # 256 with SwiGLU's 576 hidden units and a 9,993-piece bilingual vocabulary: 5.6 M parameters, 22.4 MB.
    # The shipped model is the CPU recipe: float32 (a CPU without bfloat16 arithmetic runs autocast ~20× slower),
    # no dropout, a 600-step warmup, 2,051 steps: 68 minutes at one thread on this project's shared 2-core machine
    # (1.4 s a step idle, 2-3.7 s beside other jobs), held-out BLEU 18.6 (its card). Longer runs keep improving;
    # on a GPU (`--device cuda`) `--steps 20000` takes minutes.
    "gpt-en-zh": Recipe(
        "A decoder-only model of today's architecture (RoPE, grouped-query attention, RMSNorm, SwiGLU) that "
        "completes 'English =' with its Chinese translation; trained on Tatoeba and HSK sentence pairs.",
        "当今架构（旋转位置编码、分组查询注意力、RMSNorm、SwiGLU）的纯解码器模型：在“English =”之后续写中文翻译；"
        "在 Tatoeba 和 HSK 的真实句对上训练。",
        # a held-out pair it translates word for word, with a reordering (now before the adjective)
        "I'm very happy now.",
        {**_NATURAL_RECIPE, "steps": 2051, "warmup": 600, "eval_every": 0, "bf16": False, "config": _MODERN},
    ),
}
RECIPES: Mapping[str, Recipe] = MappingProxyType(_RECIPES)


def is_decoder_only_recipe(name: str) -> bool:
    """Whether task `name`'s recipe trains one decoder stack (its config names the architecture)."""
    return RECIPES[name].train.get("config", {}).get("architecture") == "decoder-only"
