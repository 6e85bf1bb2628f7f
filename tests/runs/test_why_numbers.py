"""The Why page's numbers: every shipped model has an example pair, and each pair shows a real, measured effect (the
two runs write different tokens at the measured position, and one head restores a real part of the difference)."""

from __future__ import annotations

import csv
import io

import pytest

from runs.why_page import EXAMPLES, export_arrays, export_csv, pair_view, sentence_view
from transformer.storage.registry import MODELS_DIR, list_models, load_model


def test_every_shipped_model_has_an_example_pair() -> None:
    assert {info.name for info in list_models(MODELS_DIR)} == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_pair_shows_an_effect(name: str) -> None:
    clean, corrupted = EXAMPLES[name]
    view = pair_view(load_model(name), clean, corrupted)
    assert view.clean_written[view.position - 1] != view.corrupted_written[view.position - 1]
    assert view.clean_diff - view.corrupted_diff > 1.0  # logits apart by more than one nat
    _, _, restored = view.best_head()
    assert restored > 0.1
    assert view.residual[-1, view.row] == pytest.approx(1.0, abs=1e-9)


def test_export_holds_every_number() -> None:
    bundle = load_model("en-zh")
    clean, corrupted = EXAMPLES["en-zh"]
    pair = pair_view(bundle, clean, corrupted)
    sentence = sentence_view(bundle, clean, pair.position)
    arrays, labels = export_arrays(pair, sentence)
    assert arrays["patch.residual"].shape == pair.residual.shape and len(labels["patch.modules"]) == len(pair.modules)
    rows = list(csv.DictReader(io.StringIO(export_csv(pair, sentence))))
    assert sum(r["measure"] == "patch_head" for r in rows) == pair.heads.size
    assert sum(r["measure"] == "patch_residual" for r in rows) == pair.residual.size
    shares = [float(r["value"]) for r in rows if r["measure"] == "dla_share"]
    assert sentence.attribution is not None and abs(sum(shares) - sentence.attribution.logit) < 1e-3
