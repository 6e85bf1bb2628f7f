"""The Why probes against their definitions, on shipped, random and tiny converted (GPT-2, BERT, Marian) models:

- the logit lens's last read is the model's own output distribution (same bits);
- patching restores exactly 0 where the patched point is the corrupted run's own, and exactly 1 for the stream after
  the last layer at the output position;
- direct logit attribution adds up, with the embeddings' and the biases' shares, to the real logit within 1e-4;
- every refused input is a `ProbeRefusal` with a catalog key, never another exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from transformer.config import TransformerConfig
from transformer.probes.attribution import attribute
from transformer.probes.lens import logit_lens
from transformer.probes.patching import patch
from transformer.probes.stream import ProbeRefusal, output_row, read_text
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import load_model, random_bundle
from transformer.text.prompt import text_rows

SHIPPED = ["en-zh", "gpt-translate-en-zh", "reverse"]
WORDS = ["cat", "dog", "mat", "hat", "sun", "book", "tree", "red"]


def _random(architecture: str, norm: str) -> ModelBundle:
    config = TransformerConfig(architecture=architecture, norm_position=norm, n_layers=2, d_model=32, n_heads=4, d_ff=64)  # type: ignore[arg-type]
    return random_bundle(config, seed=3)


def _length(bundle: ModelBundle, text: str) -> int:
    rows = text_rows(bundle, text)
    return len(rows.src) if rows.src is not None else len(rows.prefix)


def _pair(bundle: ModelBundle) -> tuple[str, str]:
    """A clean sentence and one with a word changed, of the same length in this model's tokens."""
    mask = " [MASK]" if bundle.config.is_encoder_only else ""
    for a in WORDS:
        for b in WORDS:
            clean, corrupted = f"the {a} is on the mat{mask}", f"the {b} is on the mat{mask}"
            if a != b and _length(bundle, clean) == _length(bundle, corrupted):
                return clean, corrupted
    raise AssertionError("no pair of equal length")


@pytest.fixture(
    scope="module",
    params=[*SHIPPED, "random-ed-post", "random-do-pre", "random-eo-post", "tiny-gpt2", "tiny-marian", "tiny-bert"],
)
def bundle(request: pytest.FixtureRequest, pretrained_dir: Path) -> ModelBundle:
    name = request.param
    if name.startswith("random-"):
        kind, norm = name.split("-")[1:]
        return _random({"ed": "encoder-decoder", "do": "decoder-only", "eo": "encoder-only"}[kind], norm)
    if name.startswith("tiny-"):
        return load_model(pretrained_dir / name)
    return load_model(name)


def _real_logits(bundle: ModelBundle, text: str) -> tuple[torch.Tensor, int]:
    reading = read_text(bundle, text)
    with torch.no_grad():
        logits = bundle.model(reading.src, reading.tgt)[0]  # (T, vocab): the model's own forward
    return logits, output_row(reading, 1)


def test_lens_last_read_is_the_real_output(bundle: ModelBundle) -> None:
    text = _pair(bundle)[0]
    lens = logit_lens(bundle, text, position=1)
    logits, row = _real_logits(bundle, text)
    probs = torch.softmax(logits[row].float(), dim=-1)
    assert lens.reads[-1].p_token == float(probs[lens.token_id])
    top = torch.topk(probs, len(lens.reads[-1].top))
    assert [p for _, p in lens.reads[-1].top] == top.values.tolist()
    assert lens.token_id == int(logits[row].argmax())
    assert lens.reads[0].part == "embeddings" and lens.reads[-1].layer_end
    assert sum(r.layer_end for r in lens.reads) == bundle.config.n_layers + 1


def test_patching_endpoints(bundle: ModelBundle) -> None:
    clean, corrupted = _pair(bundle)
    result = patch(bundle, clean, corrupted)
    assert result.residual.shape[0] == bundle.config.n_layers + 1
    assert result.residual[-1, result.row] == pytest.approx(1.0, abs=1e-9)  # the final stream at the output row
    if bundle.config.has_decoder and not bundle.config.is_encoder_decoder:  # the stream reads <bos> + the input
        same = [p for p in range(1, len(result.clean.input_tokens) + 1) if p - 1 not in result.differs]
        assert all(abs(result.residual[0, p]) < 1e-9 for p in same)  # the runs' own point: nothing restored
    if bundle.config.is_encoder_decoder:  # teacher-forced on one output: the decoder's input is the same in both runs
        assert abs(result.residual[0]).max() < 1e-9
    assert set(result.heads) and all(len(v) == bundle.config.n_heads for v in result.heads.values())


def test_attribution_adds_up(bundle: ModelBundle) -> None:
    text = _pair(bundle)[0]
    if bundle.config.output_transform:  # BERT's masked-LM head: not linear
        with pytest.raises(ProbeRefusal) as err:
            attribute(bundle, text, 1)
        assert err.value.key == "dla_transform"
        return
    result = attribute(bundle, text, 1)
    logits, row = _real_logits(bundle, text)
    assert result.logit == pytest.approx(float(logits[row, result.token_id]), abs=1e-5)
    assert abs(result.total - result.logit) < 1e-4
    assert next(iter(result.shares)) == "embeddings" and list(result.shares)[-1] == "biases"
    n_attn = sum(len(v) for v in result.heads.values())
    assert n_attn == bundle.config.n_layers * bundle.config.n_heads * (2 if bundle.config.is_encoder_decoder else 1)


def test_attribution_of_another_token_adds_up() -> None:
    bundle = load_model("en-zh")
    result = attribute(bundle, "the cat is on the mat", 1, token="狗")
    assert result.token == "狗" and abs(result.total - result.logit) < 1e-4


@pytest.mark.parametrize(
    ("clean", "corrupted", "key"),
    [
        ("", "the dog", "empty"),
        ("the cat is on the mat", "the cat is on the mat", "identical"),
        ("the cat is on the mat", "the dog is on a big mat", "lengths"),
    ],
)
def test_patch_refuses(clean: str, corrupted: str, key: str) -> None:
    with pytest.raises(ProbeRefusal) as err:
        patch(load_model("en-zh"), clean, corrupted)
    assert err.value.key == key


def test_position_and_target_refused() -> None:
    bundle = load_model("en-zh")
    with pytest.raises(ProbeRefusal) as err:
        patch(bundle, "the cat is on the mat", "the dog is on the mat", position=99)
    assert err.value.key == "position" and err.value.values["position"] == 99
    with pytest.raises(ProbeRefusal) as err:
        patch(bundle, "the cat is on the mat", "the dog is on the mat", target="zzz-not-a-token")
    assert err.value.key == "target"
    with pytest.raises(ProbeRefusal):
        logit_lens(bundle, "the cat", position=0)


def test_cancel_stops_the_sweep() -> None:
    from transformer.probes.stream import Cancelled

    seen: list[int] = []
    with pytest.raises(Cancelled):
        patch(
            load_model("en-zh"),
            "the cat is on the mat",
            "the dog is on the mat",
            progress=lambda d, t: seen.append(d),
            cancelled=lambda: len(seen) > 2,
        )
    assert len(seen) == 3


def test_bert_lens_reads_the_mask(pretrained_dir: Path) -> None:
    bundle = load_model(pretrained_dir / "tiny-bert")
    lens = logit_lens(bundle, "the cat is on the [MASK]")
    reading = lens.reading
    assert reading.stream_tokens[output_row(reading, lens.position)] == "[MASK]"
