"""The Why page's words for what the probes name by hook name: residual points, attention modules, heads, lens reads
and attribution components, in the reader's language, with layers and heads counted from 1 (`hook_names.ordinal`)."""

from __future__ import annotations

from hook_names import HEAD_SEPARATOR, ordinal
from runs.why_page import AttributionTable, LensTable, module_parts
from ui.i18n import t


def module_label(module: str) -> str:
    """ "decoder.layers.2.cross_attn" → "layer 3 · cross-attention"."""
    kind, layer = module_parts(module)
    return t("why.module_label", layer=ordinal(layer), kind=t(f"why.kind_{kind}"))


def module_short(module: str) -> str:
    """ "decoder.layers.2.cross_attn" → "L3 cross": a heat map's row on a phone."""
    kind, layer = module_parts(module)
    return t("why.module_short", layer=ordinal(layer), kind=t(f"why.kind_short_{kind}"))


def head_label(module: str, head: int) -> str:
    """A head (0-based) of a module: "layer 3 · cross-attention · head 2"."""
    return f"{module_label(module)} · {t('why.head_label', head=ordinal(head))}"


def residual_labels(n_rows: int) -> list[str]:
    """The rows of the residual sweep: each layer's input, then the stream after the last layer."""
    return [t("why.residual_in", layer=ordinal(i)) for i in range(n_rows - 1)] + [t("why.residual_final", layer=n_rows - 1)]


def lens_labels(lens: LensTable, per_layer: bool) -> list[str]:
    """Each read's label: "embeddings", then "after layer 2" (`per_layer`: only the reads ending a layer are drawn)
    or "L2 cross-attn" (every sublayer)."""
    out = []
    for layer, part in zip(lens.layers, lens.parts, strict=True):
        if layer is None:
            out.append(t("why.read_embeddings"))
        elif per_layer:
            out.append(t("why.read_layer", layer=ordinal(layer)))
        else:
            out.append(t("why.read_part", layer=ordinal(layer), part=t(f"why.part_{part}")))
    return out


def component_label(name: str) -> str:
    """An attribution component → a short label: embeddings, biases, "L2 cross head 3", "L1 feed-forward"."""
    if name == "embeddings":
        return t("why.dla_embeddings")
    if name == "biases":
        return t("why.dla_biases")
    if name.endswith(".feed_forward"):
        return t("why.dla_ffn", layer=ordinal(int(name.split(".")[2])))
    module, _, head = name.partition(HEAD_SEPARATOR)
    kind, layer = module_parts(module)
    if not head:  # a whole attention sublayer (a module with no W^O to split by)
        return module_label(module)
    return t("why.dla_head", layer=ordinal(layer), kind=t(f"why.kind_short_{kind}"), head=ordinal(int(head)))


def component_labels(table: AttributionTable) -> list[str]:
    return [component_label(n) for n in table.names]
