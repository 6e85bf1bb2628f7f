"""The Chinese catalogs speak one vocabulary (assets/i18n/glossary.json) and leave no English untranslated.

The rule, applied to every string of assets/i18n/zh/*.json:

1. No variant a glossary term replaced appears: Chinese variants anywhere (补齐, 前归一化, ...), English
   ones as whole words (query, key, value, token, padding, pre-norm, post-norm).
2. No English word is left untranslated, except
   - code and formulas: `{placeholders}`, `backtick spans`, `$LaTeX$`, special tokens such as <pad>, single
     letters (variables: q, k, v, Q, K, V, x, g, b, N, h), words written with subscripts or superscripts
     (headᵢ, Wᵢᴼ), and the names in CODE_NAMES (config fields like d_model, functions like softmax,
     module and library names like LayerNorm, NumPy, file formats, proper names);
   - a gloss: an English term in full-width brackets right after its Chinese term, on its own or after a
     comma: 掩码（mask）, 后置归一化（post-norm）, （后置归一化，post-norm）. For a glossary term the Chinese
     before the gloss must be that term's own word, so 查询（query） passes and 问题（query） does not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CATALOGS = Path(__file__).resolve().parents[2] / "assets" / "i18n"
GLOSSARY = json.loads((CATALOGS / "glossary.json").read_text(encoding="utf-8"))["terms"]
ZH_FILES = sorted((CATALOGS / "zh").glob("*.json"))

CODE_NAMES = {
    # config fields and shapes
    "d_model",
    "d_k",
    "d_v",
    "d_ff",
    "n_layers",
    "n_heads",
    "max_len",
    "M_k",
    "PE",
    "pos",
    "L2",
    # functions and operations written as in the formulas
    "softmax",
    "Softmax",
    "ReLU",
    "Concat",
    "Var",
    "sin",
    "cos",
    "exp",
    "log",
    "argmax",
    "max",
    # modules, models, libraries, formats
    "LayerNorm",
    "BatchNorm",
    "Transformer",
    "GPT",  # the model family (a name, like Transformer)
    "BERT",  # pretrained families the app converts (transformer/hf/)
    "Marian",
    "Llama",  # today's decoder-only families (transformer/hf/llama.py)
    "Qwen",
    "RMSNorm",  # their parts, named as in their papers and configs
    "SwiGLU",
    "SiLU",
    "GELU",
    "RoPE",
    "rope_theta",
    "logit",  # the output layer's score before softmax: the field's word in Chinese texts too
    "Logit",
    "PCA",  # the projection the query/key map names
    "MASK",  # BERT's [MASK] token
    "BLEU",  # the translation metric the paper reports
    "NumPy",
    "PyTorch",
    "plotly",
    "js",
    "HTML",
    "PNG",
    "SVG",
    "CSV",
    "csv",
    "README",
    "JSON",
    "npz",
    "ASCII",
    "URL",
    "CPU",
    "GPU",
    # evaluation metrics and corpora (their own names in every language)
    "chrF",
    "sacrebleu",  # the tool that measures them
    "Tatoeba",
    "HSK",
    "CC",  # licences: CC BY 2.0 FR, CC BY-SA 4.0
    "BY",
    "SA",
    "FR",
    "English",  # the language switch's own label, shown as it reads
    # proper names (authors of a cited method)
    "Abnar",
    "Zuidema",
    "Zhang",  # RMSNorm (Zhang and Sennrich, 2019)
    "Sennrich",
    "Shazeer",  # GLU variants, SwiGLU (Shazeer, 2020)
}
SCRIPTS = "ᵢⱼₖₕₙ₀₁₂₃₄₅₆₇₈₉ᵀᴼᵗᵏ"  # sub/superscripts that make a word part of a formula
_CODE = re.compile(r"\{[^{}]*\}|`[^`]*`|\$[^$]*\$|<[a-z]+>")
_GLOSS = re.compile(r"(?:(?P<zh>[\u4e00-\u9fff]+)（|（(?P<inner>[\u4e00-\u9fff]+)，)(?P<en>[A-Za-z][A-Za-z\- ]*)）")
_WORD = re.compile(rf"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z]+)*[{SCRIPTS}]*")
_EN_VARIANTS = {v: term for term in GLOSSARY for v in term["replaces"] if v.isascii()}
_ZH_VARIANTS = {v: term for term in GLOSSARY for v in term["replaces"] if not v.isascii()}


def _strings() -> list[tuple[str, str]]:
    found = []
    for path in ZH_FILES:
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            found.append((f"{path.stem}.{key}", value))
    return found


STRINGS = _strings()


def _glosses_removed(text: str, where: str) -> str:
    """Drop well-formed glosses, checking that a glossary term's gloss follows that term's Chinese word."""

    def check(match: re.Match[str]) -> str:
        english = match["en"].strip()
        term = _EN_VARIANTS.get(english)
        before = match["zh"] or match["inner"]
        assert term is None or before.endswith(term["zh"]), f"{where}: gloss ({english}) follows {before!r}, not {term['zh']}"
        return f"{match['zh']}（）" if match["zh"] else f"（{match['inner']}）"

    return _GLOSS.sub(check, text)


def test_the_glossary_is_well_formed():
    names = [term["en"] for term in GLOSSARY]
    assert len(names) == len(set(names)) and {"query", "key", "value", "padding", "token"} <= set(names)
    for term in GLOSSARY:
        assert term["zh"] and term["replaces"] and term["zh"] not in term["replaces"]
        assert not any(v in term["zh"] for v in term["replaces"]), term  # the right word never trips its own check


@pytest.mark.parametrize(("where", "text"), STRINGS, ids=[w for w, _ in STRINGS])
def test_chinese_strings_use_the_glossary_and_leave_no_english(where, text):
    plain = _glosses_removed(_CODE.sub(" ", text), where)
    for variant, term in _ZH_VARIANTS.items():
        assert variant not in plain, f"{where}: “{variant}” — the glossary says {term['zh']}"
    for word in _WORD.findall(plain):
        bare = word.rstrip(SCRIPTS)
        if word != bare or len(bare) == 1 or bare in CODE_NAMES:
            continue
        term = _EN_VARIANTS.get(bare)
        assert term is None, f"{where}: English “{bare}” — the glossary says {term['zh']}"
        raise AssertionError(f"{where}: untranslated English “{bare}” (translate it, or add a code name to CODE_NAMES)")


def test_the_rule_catches_what_it_should():
    """The checks fail on the mistakes they exist for (so a passing run means something)."""
    for text in ("查询 query 一个", "用 <pad> 补齐", "前归一化", "每个 token", "问题（query）", "the weights"):
        with pytest.raises(AssertionError):
            test_chinese_strings_use_the_glossary_and_leave_no_english("probe", text)
    good = ("查询（query）", "（后置归一化，post-norm）", "`np.load(path)`", "Concat(head₁ … headₕ)", "d_model = {d}", "<pad>")
    for text in good:
        test_chinese_strings_use_the_glossary_and_leave_no_english("probe", text)
