"""One head's query and key vectors over many sentences: what the map of queries and keys (`runs.qk_map`) projects.

Each sentence is run as the heads page runs it (`trace_text`), recording the head's module's `hook_q` and `hook_k`
((1, H, T, d_k) each); the head's rows are kept with their token labels. Queries of self-attention and keys of
every kind are labelled by the token read at their position; cross-attention's queries are the decoder's and its
keys the encoder's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hook_names import act_name
from transformer.engine.decoding import trace_text
from transformer.storage.checkpoint import ModelBundle


@dataclass(frozen=True)
class HeadVectors:
    """A head's queries and keys over a sentence set.

    Attributes:
        texts: the sentences as the model read them.
        queries: (Nq, d_k) float32, sentence after sentence. keys: (Nk, d_k) float32.
        query_tokens / key_tokens: a token label per row. query_sentence / key_sentence: (Nq,) / (Nk,) sentence index.
        query_position / key_position: the row's position in its sentence.
        query_hex / key_hex: each row's token's raw bytes as hex ("e4 bd"; "" where its label is the text itself).
    """

    texts: tuple[str, ...]
    queries: np.ndarray
    keys: np.ndarray
    query_tokens: tuple[str, ...]
    key_tokens: tuple[str, ...]
    query_sentence: np.ndarray
    key_sentence: np.ndarray
    query_position: np.ndarray
    key_position: np.ndarray
    query_hex: tuple[str, ...] = ()
    key_hex: tuple[str, ...] = ()


def head_vectors(
    bundle: ModelBundle, texts: Sequence[str], kind: str, layer: int, head: int, *, generate: bool = True
) -> HeadVectors:
    """Run `bundle` on every text and keep head (`kind`, `layer`, `head`)'s query and key vectors (0-based indices)."""
    if not texts:
        raise ValueError("the map of queries and keys needs at least one sentence")
    if not (0 <= layer < bundle.config.n_layers and 0 <= head < bundle.config.n_heads):
        raise ValueError(f"no head {head} in layer {layer} of {bundle.name}")
    q_name, k_name = act_name(kind, layer, "q"), act_name(kind, layer, "k")
    queries, keys, q_tokens, k_tokens, q_sentence, k_sentence, q_pos, k_pos, read = [], [], [], [], [], [], [], [], []
    q_hex: list[str] = []
    k_hex: list[str] = []
    was_training = bundle.model.training
    bundle.model.eval()
    try:
        for i, text in enumerate(texts):
            # an encoder head's queries and keys come before any decoding: no output is written for them
            budget = 0 if kind == "encoder" and bundle.config.is_encoder_decoder else None
            trace = trace_text(bundle, text, names=[q_name, k_name], generate=generate, max_new_tokens=budget)
            read.append(trace.text)
            q = trace.cache[q_name][0, head].float().numpy()  # (Tq, d_k)
            k = trace.cache[k_name][0, head].float().numpy()  # (Tk, d_k)
            q_labels = trace.src_tokens if kind == "encoder" else trace.tgt_tokens
            k_labels = trace.tgt_tokens if kind == "decoder" else trace.src_tokens
            queries.append(q)
            keys.append(k)
            q_tokens += list(q_labels[: len(q)])
            k_tokens += list(k_labels[: len(k)])
            q_raw = trace.src_hex if kind == "encoder" else trace.tgt_hex
            k_raw = trace.tgt_hex if kind == "decoder" else trace.src_hex
            q_hex += [*q_raw[: len(q)], *[""] * (len(q) - len(q_raw[: len(q)]))]
            k_hex += [*k_raw[: len(k)], *[""] * (len(k) - len(k_raw[: len(k)]))]
            q_sentence += [i] * len(q)
            k_sentence += [i] * len(k)
            q_pos += range(len(q))
            k_pos += range(len(k))
    finally:
        bundle.model.train(was_training)
    return HeadVectors(
        tuple(read),
        np.concatenate(queries),
        np.concatenate(keys),
        tuple(q_tokens),
        tuple(k_tokens),
        np.asarray(q_sentence),
        np.asarray(k_sentence),
        np.asarray(q_pos),
        np.asarray(k_pos),
        tuple(q_hex),
        tuple(k_hex),
    )
