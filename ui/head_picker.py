"""The kind / layer / head picker shared by the Attention-heads, Masks, Step-by-step and Training pages.

Keys `kind`, `layer`, `head` are the same on every page and in the URL, so a shared link opens the
same head everywhere (the training page keeps its own keys, off the URL: its film is of another model).
The kind is synced to the URL by hand, as its raw name: a bound selectbox would put the translated
label there, and a link would then change with the language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from hook_names import ordinal
from ui.i18n import labels_of, t
from ui.labels import keep_valid

KIND_KEY, LAYER_KEY, HEAD_KEY = "kind", "layer", "head"


def kind_name(kind: str) -> str:
    """An attention kind's name in the UI language ("cross" → "Encoder–decoder (cross) attention")."""
    return t(f"heads.kind_{kind}")


def kind_picker(
    container,
    kinds: Sequence[str],
    *,
    default: str | None = None,
    section: str = "heads",
    key: str = KIND_KEY,
    url: bool = True,
    drop_default: bool = False,
    names: Mapping[str, str] | None = None,
) -> str:
    """An attention-kind selectbox in `container`, seeded from `?kind=` and written back to it.

    The label comes from catalog `section` ("<section>.kind"), the options' names from `names` (shorter
    ones for a narrow column) or `kind_name`. `drop_default` leaves the URL without
    `kind` while the page's default is chosen (the heads page's links stay short); otherwise the
    kind is always in the URL.
    """
    default = default if default in kinds else kinds[0]
    if key not in st.session_state:
        st.session_state[key] = st.query_params[key] if url and st.query_params.get(key) in kinds else default
    keep_valid(key, kinds, default)
    labels = {k: (names or {}).get(k) or kind_name(k) for k in kinds}
    kind = container.selectbox(t(f"{section}.kind"), kinds, key=key, format_func=labels_of(labels))
    if url:
        if drop_default and kind == default:
            st.query_params.pop(key, None)
        else:
            st.query_params[key] = kind
    return kind


def layer_head_picker(
    columns: Sequence,
    n_layers: int,
    n_heads: int,
    *,
    section: str = "heads",
    keys: tuple[str, str] = (LAYER_KEY, HEAD_KEY),
    url: bool = True,
) -> tuple[int, int]:
    """Layer and head selectboxes in two columns (bound to `?layer=&head=` unless `url=False`); stale values fall back to 0."""
    layers, heads = list(range(n_layers)), list(range(n_heads))
    layer_key, head_key = keys
    keep_valid(layer_key, layers, 0)
    keep_valid(head_key, heads, 0)
    bind = "query-params" if url else None

    def shown(i: int) -> str:  # layer 1 is index 0: the URL keeps the index
        return str(ordinal(i))

    layer = columns[0].selectbox(t(f"{section}.layer"), layers, key=layer_key, bind=bind, format_func=shown)
    head = columns[1].selectbox(t(f"{section}.head"), heads, key=head_key, bind=bind, format_func=shown)
    return int(layer), int(head)


def head_picker(
    kinds: Sequence[str], n_layers: int, n_heads: int, *, default_kind: str = "decoder", section: str = "masks"
) -> tuple[str, int, int]:
    """Attention kind, layer and head in three columns (`?kind=cross&layer=1&head=0`). The decoder's
    masked self-attention is the default: the one with a mask even for a single sentence."""
    cols = st.columns(3)
    kind = kind_picker(cols[0], kinds, default=default_kind, section=section)
    layer, head = layer_head_picker(cols[1:], n_layers, n_heads, section=section)
    return kind, layer, head
