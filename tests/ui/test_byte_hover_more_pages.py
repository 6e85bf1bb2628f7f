"""In the app, in both languages: the Masks, LayerNorm, positional and feed-forward pages hover a byte-level piece's raw
bytes under its readable label (issue 36 §3), on tiny random GPT-2 and Qwen2 folders converted offline whose Chinese
text splits 你 over three pieces; the hex is read from the folder's own tokenizer, never from the app. A shipped model's
pieces are text: its hovers have no bytes line."""

import json

import pytest

from tests.ui.conftest import app_test, assert_no_exception, plotly_array
from transformer.hf.tokenizer import piece_bytes
from transformer.storage.registry import load_model

TEXT = "你好 猫"  # 你好: not in the tiny tokenizers' merges, so 你 is spread over three one-byte pieces
MORE = "猫"  # a shorter second sentence: the Masks page's batch (padded) and the LayerNorm page's BatchNorm contrast
LINE = {"en": "bytes: ", "zh": "字节："}


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


def _split_hex(folder) -> list[str]:
    """The hex of the first two pieces the folder's own tokenizer cuts TEXT into (你's first and second byte)."""
    tokenizer = load_model(folder).target_tokenizer.hf
    pieces = tokenizer.tokenize(TEXT)[:2]
    return [" ".join(f"{b:02x}" for b in piece_bytes(piece)) for piece in pieces]


def _charts(at) -> dict[str, dict]:
    """Figure JSON of every plotly chart, by the element id's last part (the key it was shown under)."""
    return {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _strings(node) -> list[str]:
    """Every string in a figure's traces (axis categories, customdata, text), flattened."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for key, v in node.items() if key in ("x", "y", "customdata", "text") for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def _hovers(fig: dict) -> list[str]:
    return [s for trace in fig["data"] for s in _strings(trace)]


def _expect(fig: dict, name: str, lang: str, raws: list[str]) -> None:
    """The chart's hover names 你's first two pieces, each with its own bytes on the line under it."""
    hovers = _hovers(fig)
    for part, raw in zip(("¹⁄₃", "²⁄₃"), raws, strict=True):
        want = f"你 {part}<br>{LINE[lang]}{raw}"
        assert any(want in s for s in hovers), (name, want, hovers[:12])


def _run(page: str, model: str, lang: str, **state):
    at = app_test(page, timeout=300, model=model, text=TEXT, lang=lang, **state)
    at.run()
    assert_no_exception(at)
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_the_masks_page_hovers_the_bytes(models_dir, family, lang):
    raws = _split_hex(models_dir / f"tiny-{family}")
    assert bytes.fromhex("".join(raws).replace(" ", "")) == "你".encode()[:2]  # one byte a piece: the split is real
    charts = _charts(_run("masks", f"tiny-{family}", lang, more=MORE, no_causal=True))  # the causal mask switched off
    for name in ("mask_padding", "mask_causal", "mask_decoder", "score_steps_decoder", "forced_with_", "forced_without_"):
        _expect(_charts_named(charts, name), name, lang, raws)
    tiles = _charts_named(charts, "batch_target")["data"][0]  # the padded batch: a tile's token, its bytes beside
    cells = {(i, j) for i, row in enumerate(tiles["text"]) for j, tok in enumerate(row) if tok == "你 ¹⁄₃"}
    assert cells and all(tiles["customdata"][i][j] == f"<br>{LINE[lang]}{raws[0]}" for i, j in cells), tiles["customdata"]
    specials = [(i, j) for i, row in enumerate(tiles["text"]) for j, tok in enumerate(row) if tok.startswith("&lt;")]
    pads = [(i, j) for i, row in enumerate(plotly_array(tiles["z"]).tolist()) for j, real in enumerate(row) if not real]
    assert specials and all(tiles["customdata"][i][j] == "" for i, j in specials + pads)  # a special (<pad>): no bytes


def _charts_named(charts, prefix):
    for key, fig in charts.items():
        if prefix in key:
            return fig
    raise AssertionError(f"no chart {prefix!r}: {list(charts)}")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_the_layernorm_positional_and_feed_forward_pages_hover_the_bytes(models_dir, family, lang):
    raws = _split_hex(models_dir / f"tiny-{family}")
    charts = _charts(_run("layernorm", f"tiny-{family}", lang, more=MORE))
    for name in ("ln_overview", "ln_site", "ln_s1"):
        _expect(_charts_named(charts, name), name, lang, raws)
    charts = _charts(_run("feed_forward", f"tiny-{family}", lang))
    _expect(_charts_named(charts, "ffn_relu"), "ffn_relu", lang, raws)
    charts = _charts(_run("positional", f"tiny-{family}", lang))
    if family == "gpt2":  # learned positions: the token section shows the embedding lengths (a rotary Qwen2 adds none)
        for name in ("pe_tokens", "pe_norms"):
            _expect(_charts_named(charts, name), name, lang, raws)
    else:
        assert not any("pe_norms" in key for key in charts)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_shipped_models_hovers_have_no_bytes_line(lang):
    seen = 0
    for page, state in (
        ("masks", {"more": "we are happy"}),
        ("layernorm", {"more": "we are happy"}),
        ("feed_forward", {}),
        ("positional", {}),
    ):
        at = app_test(page, timeout=300, text="we are happy today", lang=lang, **state)
        at.run()
        assert_no_exception(at)
        for name, fig in _charts(at).items():
            hovers = _hovers(fig)
            seen += len(hovers)
            assert not any(LINE["en"] in s or LINE["zh"] in s for s in hovers), (page, name)
    assert seen  # the hovers were there to look at


@pytest.mark.parametrize(("family", "lang"), [("gpt2", "en"), ("qwen2", "zh")])
def test_the_lessons_figures_hover_the_bytes(models_dir, family, lang):
    """Walked step by step, with each answer revealed: the steps whose figures hover the user's pieces give their bytes
    (why attention's distances, the embeddings' lengths and LayerNorm's statistics where the model has them, the
    causal mask)."""
    from runs import lesson
    from tests.ui.test_lesson_page import reveal

    raws = _split_hex(models_dir / f"tiny-{family}")
    at = _run("lesson", f"tiny-{family}", lang)
    hovering = set()
    for n, step in enumerate(lesson.STEPS, start=1):
        reveal(at)
        for fig in _charts(at).values():
            try:
                _expect(fig, step, lang, raws)
                hovering.add(step)
            except AssertionError:
                pass
        if n < len(lesson.STEPS):
            at.button(key="lesson_next").click().run()
            assert_no_exception(at)
    expected = {"why_attention", "masks"} | ({"embeddings", "layernorm"} if family == "gpt2" else set())
    assert expected <= hovering, hovering
