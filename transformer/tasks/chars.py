"""Character-level tasks: copy, reverse and sort.

Each output character is one input character moved to a new place, so the task is fully described
by its alignment (which input position lands at output position j), and the target is read off the
source through it. That makes the "right" cross-attention pattern known exactly: a diagonal for
copy, an anti-diagonal for reverse, a permutation for sort.
"""

from __future__ import annotations

import itertools
import random
import string
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from transformer.tasks.base import Example, Level, Task
from transformer.text.graphemes import graphemes

# About 500 common Simplified Chinese characters, so a teacher can type a greeting, a phrase about
# attention, or a person's name. Grouped (not sorted) for reading: a demo phrase, common surnames,
# common given-name characters, the most frequent characters, numbers, then everyday and technical words.
COMMON_HANZI = (
    "你好世界我爱学习中国人工智能注意力机制"
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕"
    "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武"
    "戴莫孔向汤阳"
    "伟芳娜秀英敏静丽强军洋勇杰涛明超平兰文华建红玉梅飞鹏宇晨浩子欣怡雨然思博佳琪晓雪婷慧颖俊辉峰宁"
    "海波丹云凤春亮成志新东昊天嘉瑞诗琳花晶美小"
    "的一是不了在有他这为之大来以个上们到说时地也就道要出会可下而年生自那后对着事其里所去行过家十用"
    "发如作者多日都三同么经法当起与看进种将还分此心前面又定见只主没从"
    "二四五六七八九百千零两"
    "吃喝水饭茶书读写字话听朋友老师妈爸哥姐弟妹猫狗车校今昨早晚月星期末午手口目耳头身体足衣服鞋包门"
    "窗桌椅床灯电脑视买卖开关走跑坐站睡醒笑哭想知问答教课本纸笔画唱歌跳舞玩游戏山河湖风火空气草树鸟"
    "鱼牛羊鸡冷热南西北左右间外内蓝绿黑色旧长快少真再请您它她哪谁什怎样很太最更"
    "汉语言化科技术计算数据模型网络信息输入编码解器序列位置量层"
    "城市京广州深圳香港台湾路店医院公园场楼房父母儿女孩男活休运动健康乐幸福安祝节欢迎感系否应该必须喜"
    "希望觉得认识记忘帮助使需始结束完"
)


def hanzi_level(level: int) -> str:
    """The characters of one level of the Table of General Standard Chinese Characters (通用规范汉字表), in its order.

    Level 1 (一级字表) has 3,500 characters, level 2 (二级字表) 3,000 more, name characters such as 梓, 睿, 宸 among
    them. Shipped as `data/hanzi_level{1,2}.txt`, generated once from Unihan's kTGH field (see
    `data/make_hanzi_levels.py`).
    """
    return (Path(__file__).with_name("data") / f"hanzi_level{level}.txt").read_text(encoding="utf-8").replace("\n", "")


LEVEL_ONE_HANZI = hanzi_level(1)
LEVEL_TWO_HANZI = hanzi_level(2)
# Common surnames the table puts in level 3 (闫 is number 6546), read with level 2 so that names of the ~150 most
# common surnames are never <unk>.
LEVEL_THREE_SURNAMES = "闫"
# Full-width Chinese punctuation: a Chinese sentence or a quoted title reads without <unk>.
CHINESE_PUNCTUATION = "，。？！、；：“”‘’（）《》"
HANZI_LEVELS = (1, 2)
# Symbols no char task's alphabet has (accented and other scripts' letters, emoji, rare hanzi outside levels 1-2
# such as 䶮 of the name 刘䶮): drawn now and then so the model learns to move an <unk> like any other symbol.
# Which ones is immaterial to the model (every one reads as <unk>), but the strings stay readable.
UNKNOWN_SYMBOLS = "éüñßçΩλжяあの한😀👍🎉🌏🐱䶮䲜㐀"


@cache
def hanzi(levels: int = 2) -> str:
    """Every hanzi a char task with `hanzi_levels=levels` knows: the common ones above (12 of them, surnames and name
    characters such as 邹 and 婷, are outside level 1), then the rest of level 1 in the table's order, then (levels=2)
    level 2 and the level-3 surnames."""
    extra = LEVEL_TWO_HANZI + LEVEL_THREE_SURNAMES if levels >= 2 else ""
    return "".join(dict.fromkeys(COMMON_HANZI + LEVEL_ONE_HANZI + extra))


HANZI = hanzi(2)

ASCII_LETTERS = string.ascii_letters
ASCII_DIGITS = string.digits
ASCII_PUNCTUATION = string.punctuation

# Two kinds of strings, half each, so both scripts are well trained: with characters drawn uniformly
# from the whole alphabet, 5 in 6 would be hanzi and English words would almost never occur.
CHINESE_HEAVY_HANZI_SHARE = 0.7  # in a Chinese-heavy string, each character is a hanzi with this probability
ASCII_HEAVY_HANZI_SHARE = 0.05  # in an ASCII-heavy string, a rare hanzi keeps mixed input familiar
# Within the ASCII part: mostly letters, with spaces often enough to separate word-like runs.
ASCII_CLASS_WEIGHTS: tuple[tuple[str, float], ...] = (
    (ASCII_LETTERS, 0.6),
    (ASCII_DIGITS, 0.15),
    (ASCII_PUNCTUATION, 0.15),
    (" ", 0.1),
)
CHINESE_PUNCTUATION_SHARE = 0.1  # of a string's Chinese characters, this share are full-width punctuation marks


@dataclass(frozen=True, kw_only=True)
class CharTask(Task):
    """A task whose target is a rearrangement of the source's characters.

    Attributes:
        min_len: shortest source, in characters (lengths are uniform in [min_len, max_len]).
        max_len: longest source, in characters.
        chinese_heavy_fraction: share of sampled strings that are Chinese-heavy; the rest are ASCII-heavy.
        hanzi_levels: levels of the Table of General Standard Chinese Characters in the alphabet: 1 (3,500
            characters, the alphabet `reverse` was first trained with) or 2 (6,500, names such as 张梓涵 read).
        chinese_punctuation: full-width Chinese punctuation (，。？！、；：“”‘’（）《》) in the alphabet.
        unknown_share: share of sampled characters that are outside the alphabet (`UNKNOWN_SYMBOLS`): the model
            sees <unk> in training and reverses it in place, as any other symbol (never trained on, <unk> made
            it stop: "张梓涵" came back as "涵").
        alphabet: the symbols to draw from, uniformly, and the whole vocabulary ("": every hanzi and ASCII character,
            drawn as above). A lesson trains on a few dozen symbols: with thousands, every step pays for a softmax over
            all of them and each symbol's embedding is seen rarely, so the pattern forms minutes later.
    """

    level: Level = "char"
    min_len: int = 1
    max_len: int = 32
    chinese_heavy_fraction: float = 0.5
    hanzi_levels: int = 2
    chinese_punctuation: bool = True
    unknown_share: float = 0.01
    alphabet: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.min_len <= self.max_len:
            raise ValueError(f"need 1 <= min_len <= max_len, got min_len={self.min_len}, max_len={self.max_len}")
        if not 0.0 <= self.chinese_heavy_fraction <= 1.0:
            raise ValueError(f"chinese_heavy_fraction must be in [0, 1], got {self.chinese_heavy_fraction}")
        if self.hanzi_levels not in HANZI_LEVELS:
            raise ValueError(f"hanzi_levels must be one of {HANZI_LEVELS}, got {self.hanzi_levels!r}")
        if not isinstance(self.chinese_punctuation, bool):
            raise ValueError(f"chinese_punctuation must be true or false, got {self.chinese_punctuation!r}")
        if not 0.0 <= self.unknown_share < 1.0:
            raise ValueError(f"unknown_share must be in [0, 1), got {self.unknown_share}")

    @abstractmethod
    def alignment(self, symbols: Sequence[str]) -> tuple[int, ...]:
        """For each output position j, the index of the source character (grapheme) that goes there."""

    def target(self, source: str) -> str:
        """The correct output for any source string (typed in the app or sampled)."""
        symbols = graphemes(source)
        return "".join(symbols[i] for i in self.alignment(symbols))

    def reference(self, source: str) -> Example | None:
        """Any non-empty string has a right answer, even with symbols outside the alphabet.

        Characters are user-perceived characters (NFC, extended grapheme clusters): reversing "👍🏽é" gives
        "é👍🏽", not the skin tone before the thumb; `source` comes back NFC-normalised.
        """
        symbols = graphemes(source)
        if not symbols:
            return None
        alignment = self.alignment(symbols)
        return Example("".join(symbols), "".join(symbols[i] for i in alignment), alignment)

    def sample(self, rng: random.Random) -> Example:
        length = rng.randint(self.min_len, self.max_len)
        if self.alphabet:
            symbols = rng.choices(self.source_vocabulary(), k=length)
        else:
            chinese_heavy = rng.random() < self.chinese_heavy_fraction
            pool, cumulative = _sampling(self.hanzi_levels, self.chinese_punctuation, self.unknown_share)
            symbols = rng.choices(pool, cum_weights=cumulative[chinese_heavy], k=length)  # one grapheme each
        alignment = self.alignment(symbols)
        return Example("".join(symbols), "".join(symbols[i] for i in alignment), alignment)

    def source_vocabulary(self) -> tuple[str, ...]:
        return _symbols(self.alphabet) if self.alphabet else _alphabet(self.hanzi_levels, self.chinese_punctuation)

    def target_vocabulary(self) -> tuple[str, ...]:
        return self.source_vocabulary()


@cache
def _symbols(alphabet: str) -> tuple[str, ...]:
    """A task option's alphabet as its sorted distinct symbols (graphemes), computed once per alphabet."""
    return tuple(sorted(set(graphemes(alphabet))))


@cache
def _sampling(levels: int, punctuation: bool, unknown_share: float) -> tuple[str, dict[bool, tuple[float, ...]]]:
    """(pool, {chinese_heavy: cumulative weights}) for `rng.choices`: the hanzi, each ASCII class, the full-width
    punctuation, then the unknown symbols; a mark takes `CHINESE_PUNCTUATION_SHARE` of the Chinese share, and the
    unknown symbols `unknown_share` of all (with no marks and no unknowns, the pool and weights `reverse`'s first
    stages drew from, so their commands still give the same strings)."""
    chinese = hanzi(levels)
    marks = CHINESE_PUNCTUATION if punctuation else ""
    unknown = UNKNOWN_SYMBOLS if unknown_share else ""
    pool = chinese + "".join(chars for chars, _ in ASCII_CLASS_WEIGHTS) + marks + unknown

    def cumulative(hanzi_share: float) -> tuple[float, ...]:
        marks_share = CHINESE_PUNCTUATION_SHARE * hanzi_share if marks else 0.0
        weights = [(hanzi_share - marks_share) / len(chinese)] * len(chinese)
        for chars, weight in ASCII_CLASS_WEIGHTS:
            weights += [(1 - hanzi_share) * weight / len(chars)] * len(chars)
        weights += [marks_share / len(CHINESE_PUNCTUATION)] * len(marks)
        if unknown:  # rng.choices needs no normalising: the known symbols keep 1, the unknown ones add their share
            weights += [unknown_share / (1 - unknown_share) / len(unknown)] * len(unknown)
        return tuple(itertools.accumulate(weights))

    return pool, {True: cumulative(CHINESE_HEAVY_HANZI_SHARE), False: cumulative(ASCII_HEAVY_HANZI_SHARE)}


@cache
def _alphabet(levels: int, punctuation: bool) -> tuple[str, ...]:
    """The sorted symbols of a char task: ASCII, the hanzi of `levels` and (with `punctuation`) full-width marks."""
    marks = CHINESE_PUNCTUATION if punctuation else ""
    return tuple(sorted(set(ASCII_LETTERS + ASCII_DIGITS + ASCII_PUNCTUATION + " " + hanzi(levels) + marks)))


@dataclass(frozen=True, kw_only=True)
class CopyTask(CharTask):
    """Output = input. Cross-attention should be the diagonal: output j reads input j."""

    name: str = "copy"
    description_en: str = (
        "Copy: the output repeats the input character by character. "
        "Each output position only needs the same input position, so cross-attention should draw a clean diagonal."
    )
    description_zh: str = "复制：输出逐字重复输入。每个输出位置只需要输入中相同的位置，所以交叉注意力应当呈现一条清晰的对角线。"

    def alignment(self, symbols: Sequence[str]) -> tuple[int, ...]:
        return tuple(range(len(symbols)))


@dataclass(frozen=True, kw_only=True)
class ReverseTask(CharTask):
    """Output = input backwards. Cross-attention should be the anti-diagonal: output j reads input n-1-j."""

    name: str = "reverse"
    max_len: int = 48
    description_en: str = (
        "Reverse: the output is the input read backwards. "
        "Output position j needs input position n-1-j, so cross-attention should draw an anti-diagonal."
    )
    description_zh: str = "反转：输出是倒过来的输入。第 j 个输出位置需要第 n-1-j 个输入位置，所以交叉注意力应当呈现一条反对角线。"

    def alignment(self, symbols: Sequence[str]) -> tuple[int, ...]:
        return tuple(range(len(symbols) - 1, -1, -1))


@dataclass(frozen=True, kw_only=True)
class SortTask(CharTask):
    """Output = the input's characters in Unicode code point order (stable for repeated characters)."""

    name: str = "sort"
    description_en: str = (
        "Sort: the output is the input's characters in Unicode code point order (space first, uppercase before "
        "lowercase, Chinese last). Each output position must find the next-smallest character wherever it is, "
        "so attention jumps around the input."
    )
    description_zh: str = (
        "排序：输出是按 Unicode 码位排好序的输入字符（空格最前，大写字母在小写字母前，汉字在最后）。"
        "每个输出位置都要找到下一个最小的字符，不论它在哪里，所以注意力会在输入中来回跳动。"
    )

    def alignment(self, symbols: Sequence[str]) -> tuple[int, ...]:
        return tuple(sorted(range(len(symbols)), key=symbols.__getitem__))  # sorted() is stable: ties keep input order
