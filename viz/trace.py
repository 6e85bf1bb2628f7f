"""A model run as plain NumPy: what every view reads.

Pages never touch tensors; they get a `TraceData` whose arrays are read-only so one cached result
can be shared safely by every session. Arrays are keyed by hook name (`hook_names.py`, the one
vocabulary; plain Python, no torch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hook_names import ATTENTION_KINDS, act_name


@dataclass(frozen=True)
class TraceData:
    """Tokens, output and captured arrays (hook name → array, batch dimension kept) of one run."""

    text: str
    src_tokens: tuple[str, ...]
    tgt_tokens: tuple[str, ...]
    output_tokens: tuple[str, ...]
    output_text: str
    arrays: dict[str, np.ndarray] = field(repr=False)
    truncated: bool = False
    unknown: tuple[str, ...] = ()
    teacher_forced: bool = False  # see transformer.engine.decoding.trace_text(generate=False)
    next_tokens: tuple[str, ...] = ()  # what each decoder row writes (see transformer.engine.decoding.Trace)
    src_ids: tuple[int, ...] = ()  # the ids behind src_tokens: a batch is built from these, never from strings
    tgt_ids: tuple[int, ...] = ()  # the ids behind tgt_tokens
    precision: str = "float32"  # the arithmetic of the run: "float32", or "bfloat16" (see transformer.engine.precision)
    # each token's raw bytes as hex ("e4 bd"), "" where the label is the text itself (transformer.engine.decoding.Trace)
    src_hex: tuple[str, ...] = ()
    tgt_hex: tuple[str, ...] = ()
    next_hex: tuple[str, ...] = ()

    @classmethod
    def from_trace(cls, trace) -> TraceData:  # trace: transformer.engine.decoding.Trace
        arrays = trace.cache.numpy()
        for array in arrays.values():
            array.setflags(write=False)
        return cls(
            text=trace.text,
            src_tokens=tuple(trace.src_tokens),
            tgt_tokens=tuple(trace.tgt_tokens),
            output_tokens=tuple(trace.output_tokens),
            output_text=trace.output_text,
            arrays=arrays,
            truncated=trace.truncated,
            unknown=tuple(trace.unknown),
            teacher_forced=trace.teacher_forced,
            next_tokens=tuple(trace.next_tokens),
            src_ids=tuple(trace.src_ids),
            tgt_ids=tuple(trace.tgt_ids),
            precision=trace.precision,
            src_hex=tuple(trace.src_hex),
            tgt_hex=tuple(trace.tgt_hex),
            next_hex=tuple(trace.next_hex),
        )

    def kinds(self) -> list[str]:
        """Attention kinds present in this run, in the paper's order."""
        return [k for k in ATTENTION_KINDS if act_name(k, 0, "pattern") in self.arrays]

    def n_layers(self, kind: str) -> int:
        n = 0
        while act_name(kind, n, "pattern") in self.arrays:
            n += 1
        return n

    def pattern(self, kind: str, layer: int) -> np.ndarray:
        """(H, Tq, Tk) attention weights of one layer (batch item 0)."""
        return self.arrays[act_name(kind, layer, "pattern")][0]

    def patterns(self, kind: str) -> np.ndarray:
        """(L, H, Tq, Tk) attention weights of every layer of one kind."""
        return np.stack([self.pattern(kind, layer) for layer in range(self.n_layers(kind))])

    def query_tokens(self, kind: str) -> tuple[str, ...]:
        return self.src_tokens if kind == "encoder" else self.tgt_tokens

    def key_tokens(self, kind: str) -> tuple[str, ...]:
        return self.tgt_tokens if kind == "decoder" else self.src_tokens

    def query_hex(self, kind: str) -> tuple[str, ...]:
        """The raw bytes (hex) of `query_tokens(kind)`, for a hover; empty where the run has none."""
        return self.src_hex if kind == "encoder" else self.tgt_hex

    def key_hex(self, kind: str) -> tuple[str, ...]:
        """The raw bytes (hex) of `key_tokens(kind)`, for a hover; empty where the run has none."""
        return self.tgt_hex if kind == "decoder" else self.src_hex

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())
