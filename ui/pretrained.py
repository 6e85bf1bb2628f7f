"""The sidebar's view of pretrained folders: one label per folder, and refusals in the user's language."""

from __future__ import annotations

import streamlit as st

from runs.pretrained import pretrained_models
from transformer.hf.errors import PretrainedRefused
from transformer.hf.families import FAMILY_NAMES
from transformer.hf.load import PRETRAINED_TASK
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import DEFAULT_MODEL
from ui.caches import get_bundle
from ui.i18n import t


def pretrained_choices(taken: list[str]) -> dict[str, str]:
    """Picker option (the folder's name) → its label: family, layers × heads, width and parameter count.

    A name a shipped model already has (or `random`) is left out: a name picks one model only.
    """
    out: dict[str, str] = {}
    for info in pretrained_models():
        if info.name in taken or info.name == "random":
            continue
        if info.problem is not None:
            out[info.name] = t("pretrained.label_refused", name=info.name)
        else:
            out[info.name] = t(
                "pretrained.label",
                name=info.name,
                family=FAMILY_NAMES[info.family],
                layers=info.n_layers,
                heads=info.n_heads,
                d_model=info.d_model,
                params=f"{info.parameters:,}",
            )
    return out


def pretrained_summary(bundle: ModelBundle) -> str:
    """The card line of a converted checkpoint: its family and folder, in the UI language."""
    return t("pretrained.summary", family=FAMILY_NAMES[bundle.card["family"]], name=bundle.name)


def refusal_line(err: PretrainedRefused) -> str:
    """Why a pretrained folder is refused, in the UI language (`err.reason` picks the sentence, or the refusal's own
    `catalog` key where it names one: `transformer/hf/llama.py`)."""
    key = str(err.details.get("catalog") or f"pretrained.refused_{err.reason}")
    return t(key, **{k: str(v) for k, v in err.details.items()})


def _sizes(bundle: ModelBundle) -> list[int]:
    c = bundle.config
    parameters = bundle.card.get("pretrained_parameters", bundle.model.num_parameters())
    return [c.n_layers, c.n_heads, c.d_model, int(parameters)]


def scale_table(bundle: ModelBundle) -> None:
    """For a pretrained model: its layers, heads, d_model and parameters beside the shipped toy's, so a class sees
    the scale (e.g. GPT-2 small's 124 M parameters beside the default translator's)."""
    if bundle.card.get("task") != PRETRAINED_TASK:
        return
    toy = get_bundle(DEFAULT_MODEL)
    rows = [t(f"pretrained.sizes_{k}") for k in ("layers", "heads", "d_model", "params")]
    columns = {t("pretrained.sizes_this"): _sizes(bundle), t("pretrained.sizes_toy", name=DEFAULT_MODEL): _sizes(toy)}
    st.markdown(f"**{t('pretrained.sizes_heading')}**")
    st.dataframe({"": rows, **{k: [f"{v:,}" for v in vs] for k, vs in columns.items()}}, hide_index=True, key="scale_table")
