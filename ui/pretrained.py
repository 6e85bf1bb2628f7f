"""The sidebar's view of pretrained folders: one label per folder, and refusals in the user's language."""

from __future__ import annotations

from runs.pretrained import pretrained_models
from transformer.hf.errors import PretrainedRefused
from transformer.hf.families import FAMILY_NAMES
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


def refusal_line(err: PretrainedRefused) -> str:
    """Why a pretrained folder is refused, in the UI language (`err.reason` picks the sentence)."""
    return t(f"pretrained.refused_{err.reason}", **{k: str(v) for k, v in err.details.items()})
