"""Training films: the probe sentence's attention and the loss curves, recorded while a model trains.

A film is what a class would have seen if it had watched the training: every few steps, every
head's attention pattern on one fixed probe sentence (teacher-forced on its right answer, so every
frame has the same axes), stored as uint8 (weight · 255, rounded: a 9×9 pattern is 81 bytes), plus
the loss, token accuracy and learning rate of every step and the periodic held-out checks.

    recorder = FilmRecorder(task, every=50)
    result = train(settings, callback=recorder)      # or call recorder(progress) from your callback
    recorder.finish(result)                           # the last step, if it fell between frames
    recorder.film().save("assets/models/reverse/film.npz")
    film = Film.load("assets/models/reverse/film.npz")

`FilmRecorder` is thread-safe: a training thread records, a page thread reads `film()` at any time.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle, attention_kinds
from transformer.tasks.base import Example
from transformer.text.batch import Batch
from transformer.text.reading import reader as text_reader
from transformer.training.evaluate import make_batch

FILM = "film.npz"  # beside model.safetensors in a checkpoint folder
CURVES = ("step", "loss", "token_accuracy", "learning_rate", "elapsed")  # one value per training step
QUANT = 255  # uint8 levels of an attention weight in a frame
MAX_FRAMES = 400  # a longer run keeps every other frame (the film stays small; the curves stay complete)
MAX_PROBE_CHARS = 64  # a probe longer than this is cut (a frame holds T² cells per head)


def probe_pair(task: Any, text: str | None = None) -> tuple[str, str]:
    """(source, target) of the probe: `text` if the task has a right answer for it, else the task's first held-out example."""
    if text:
        text = text[:MAX_PROBE_CHARS]
        example = task.reference(text) if hasattr(task, "reference") else None
        if example is not None:
            return example.source, example.target
    example = task.examples(1, split="heldout", seed=0)[0]
    return example.source, example.target


def _shape(config: Mapping[str, Any]) -> dict[str, Any]:
    """A model config without its vocabulary sizes: what must stay the same for one film to continue another.

    Read through `TransformerConfig`, so a film recorded before the config grew a field (an activation, an epsilon:
    each defaulting to the paper) still continues."""
    full = TransformerConfig.from_dict(dict(config)).to_dict()
    return {k: v for k, v in full.items() if k not in ("src_vocab_size", "tgt_vocab_size")}


def quantize(pattern: np.ndarray) -> np.ndarray:
    """Attention weights in [0, 1] → uint8 (weight · 255, rounded)."""
    return np.rint(np.clip(pattern, 0.0, 1.0) * QUANT).astype(np.uint8)


@torch.no_grad()
def probe_patterns(bundle: ModelBundle, source: str, target: str) -> dict[str, np.ndarray]:
    """Every head's attention on the probe, teacher-forced on `target`: kind → uint8 (L, H, Tq, Tk).

    Runs in eval mode (no dropout: the pattern the model computes, not a noisy sample of it) and
    puts the model back in the mode it was in. Shape of each: encoder (L, H, Ts, Ts), decoder
    (L, H, Tt, Tt), cross (L, H, Tt, Ts), with Ts = source + <eos>, Tt = <bos> + target.
    """
    model, kinds = bundle.model, attention_kinds(bundle)
    batch = probe_batch(bundle, source, target)
    names = {kind: [act_name(kind, layer, "pattern") for layer in range(bundle.config.n_layers)] for kind in kinds}
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device  # a GPU during `train --device cuda`
    try:
        with capture(model, [n for layer_names in names.values() for n in layer_names]) as cache:
            model(None if batch.src is None else batch.src.to(device), batch.tgt_in.to(device))
    finally:
        model.train(was_training)
    return {
        kind: quantize(torch.stack([cache[n][0] for n in layer_names]).float().cpu().numpy())  # (L, H, Tq, Tk)
        for kind, layer_names in names.items()
    }


def probe_batch(bundle: ModelBundle, source: str, target: str) -> Batch:
    """The probe as the model reads it in training: encoder-decoder, source + <eos> and <bos> + target;
    decoder-only, one sequence <bos> prompt [suffix] target (`transformer.text.prompt`), so its frames show the
    completion reading the prompt through self-attention."""
    return make_batch(bundle, [Example(source, target, None)])


def probe_tokens(bundle: ModelBundle, source: str, target: str) -> tuple[list[str], list[str]]:
    """Axis labels of the probe's frames: (source tokens + <eos>, the decoder's input tokens).

    The decoder's input is <bos> + target (encoder-decoder) or <bos> + prompt + suffix + target (decoder-only,
    whose source tokens are then empty: it has no encoder)."""
    batch = probe_batch(bundle, source, target)
    src_vocab = text_reader(bundle).vocab
    src = [src_vocab[i] for i in batch.src[0].tolist()] if batch.src is not None else []
    tgt_vocab = bundle.target_tokenizer.vocab
    return src, [tgt_vocab[i] for i in batch.tgt_in[0].tolist()]


@dataclass(frozen=True)
class Film:
    """A recorded training run: S frames of the probe's attention and the per-step curves.

    Attributes:
        source, target: the probe sentence and its right answer.
        src_tokens, tgt_tokens: the frames' key/query labels (source + <eos>; <bos> + target).
        frame_steps: (S,) the step of each frame (the first: step 1, nearly untrained).
        frame_loss, frame_heldout: (S,) the loss at each frame's step; the latest held-out exact-match (NaN: none yet).
        patterns: kind → (S, L, H, Tq, Tk) uint8.
        curves: CURVES name → (N,) float32, one value per step taken.
        checks: (K, 2) float32 (step, held-out exact-match) of each periodic check.
        config: the model's TransformerConfig as a dict (a film belongs to one model shape).
        stages: the steps after which a continued training's next stage began (`after`), e.g. a new learning-rate
            schedule or longer strings: where a loss spike has a known cause. Empty for a film of one run.
    """

    source: str
    target: str
    src_tokens: tuple[str, ...]
    tgt_tokens: tuple[str, ...]
    frame_steps: np.ndarray
    frame_loss: np.ndarray
    frame_heldout: np.ndarray
    patterns: Mapping[str, np.ndarray]
    curves: Mapping[str, np.ndarray]
    checks: np.ndarray
    config: Mapping[str, Any]
    stages: tuple[int, ...] = ()

    @property
    def n_frames(self) -> int:
        return len(self.frame_steps)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.patterns.values()) + sum(a.nbytes for a in self.curves.values())

    def frame(self, index: int, kind: str) -> np.ndarray:
        """Frame `index` of `kind` as float weights in [0, 1]: (L, H, Tq, Tk)."""
        return self.patterns[kind][index].astype(np.float32) / QUANT

    def continues(self, earlier: Film) -> bool:
        """Whether this film can follow `earlier` as one run: the same probe and the same model shape.

        The vocabulary may have grown in between (`--init-from` carries every known symbol into a larger
        alphabet): the frames' axes are the probe's tokens, which are the same.
        """
        same_probe = (self.source, self.target, self.src_tokens, self.tgt_tokens) == (
            earlier.source,
            earlier.target,
            earlier.src_tokens,
            earlier.tgt_tokens,
        )
        return same_probe and _shape(self.config) == _shape(earlier.config) and set(self.patterns) == set(earlier.patterns)

    def after(self, earlier: Film) -> Film:
        """`earlier` then this film, as one run: a training that continued a checkpoint (`--init-from`)
        continues its film, so a model trained in stages ships the film of all its stages.

        This film's steps and elapsed time are shifted to start where `earlier` ended; a joined film
        longer than MAX_FRAMES keeps the first frame, every other one after it, and the last.
        Raises ValueError if the probe or the model shape differ (`continues`).
        """
        if not self.continues(earlier):
            raise ValueError("a film can only continue a film of the same probe and model shape")
        steps, elapsed = float(earlier.curves["step"][-1]), float(earlier.curves["elapsed"][-1])
        shift = {"step": steps, "elapsed": elapsed}
        curves = {
            name: np.concatenate([earlier.curves[name], self.curves[name] + shift.get(name, 0.0)]).astype(np.float32)
            for name in CURVES
        }
        keep = np.arange(earlier.n_frames + self.n_frames)
        while len(keep) > MAX_FRAMES:
            keep = np.concatenate([keep[:1], keep[2::2]])
        if keep[-1] != earlier.n_frames + self.n_frames - 1:  # the last frame is the model as shipped: never thinned away
            keep = np.append(keep, earlier.n_frames + self.n_frames - 1)
        return Film(
            self.source,
            self.target,
            self.src_tokens,
            self.tgt_tokens,
            np.concatenate([earlier.frame_steps, self.frame_steps + int(steps)]).astype(np.int32)[keep],
            np.concatenate([earlier.frame_loss, self.frame_loss]).astype(np.float32)[keep],
            np.concatenate([earlier.frame_heldout, self.frame_heldout]).astype(np.float32)[keep],
            {kind: np.concatenate([earlier.patterns[kind], self.patterns[kind]])[keep] for kind in self.patterns},
            curves,
            np.concatenate([earlier.checks, self.checks + np.array([steps, 0.0], dtype=np.float32)]).astype(np.float32),
            dict(self.config),
            (*earlier.stages, int(steps), *(stage + int(steps) for stage in self.stages)),
        )

    def save(self, path: str | Path) -> Path:
        """Write the film as one compressed .npz (no pickles: plain arrays and one JSON string)."""
        import json

        meta = {
            "source": self.source,
            "target": self.target,
            "src_tokens": list(self.src_tokens),
            "tgt_tokens": list(self.tgt_tokens),
            "config": dict(self.config),
            "kinds": list(self.patterns),
            "stages": list(self.stages),
        }
        arrays = {f"pattern_{kind}": a for kind, a in self.patterns.items()}
        arrays.update({f"curve_{name}": a for name, a in self.curves.items()})
        np.savez_compressed(
            path,
            meta=np.array(json.dumps(meta, ensure_ascii=False)),
            frame_steps=self.frame_steps,
            frame_loss=self.frame_loss,
            frame_heldout=self.frame_heldout,
            checks=self.checks,
            **arrays,
        )
        return Path(path)

    @classmethod
    def load(cls, path: str | Path) -> Film:
        """Read a film written by `save` (allow_pickle stays off: a film file is data, never code)."""
        import json

        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            return cls(
                meta["source"],
                meta["target"],
                tuple(meta["src_tokens"]),
                tuple(meta["tgt_tokens"]),
                data["frame_steps"],
                data["frame_loss"],
                data["frame_heldout"],
                {kind: data[f"pattern_{kind}"] for kind in meta["kinds"]},
                {name: data[f"curve_{name}"] for name in CURVES},
                data["checks"],
                meta["config"],
                tuple(int(step) for step in meta.get("stages", ())),  # films written before stages were kept: none
            )


class FilmRecorder:
    """A training callback that records a `Film`: curves every step, the probe's attention every `every` steps.

    Returns None, so it never stops training; wrap it in your own callback to add a stop rule.
    """

    def __init__(self, task: Any, every: int, probe: str | None = None, eval_every: int = 0) -> None:
        """Args: task (for the probe's right answer), every (steps between frames), probe (text; None: the
        task's first held-out example), eval_every (the training's held-out check interval, to log the checks)."""
        if every <= 0:
            raise ValueError(f"every must be positive, got {every}")
        self.source, self.target = probe_pair(task, probe)
        self.every, self.eval_every = every, eval_every
        self._lock = threading.Lock()
        self._curves: dict[str, list[float]] = {name: [] for name in CURVES}
        self._checks: list[tuple[int, float]] = []
        self._frames: list[tuple[int, float, float, dict[str, np.ndarray]]] = []
        self._tokens: tuple[list[str], list[str]] | None = None
        self._config: dict[str, Any] = {}
        self._bundle: ModelBundle | None = None

    def record_frame(self, bundle: ModelBundle, step: int, loss: float, heldout: float | None) -> None:
        """Add a frame of the model as it is now."""
        patterns = probe_patterns(bundle, self.source, self.target)
        with self._lock:
            if self._tokens is None:
                self._tokens = probe_tokens(bundle, self.source, self.target)
                self._config = bundle.config.to_dict()
            self._frames.append((step, loss, np.nan if heldout is None else heldout, patterns))
            if len(self._frames) > MAX_FRAMES:  # thin out: keep the first frame and every other one after it
                self._frames = self._frames[:1] + self._frames[2::2]
                self.every *= 2

    def __call__(self, progress: Any) -> None:
        bundle = progress.bundle
        with self._lock:
            for name in CURVES:
                self._curves[name].append(float(getattr(progress, name)))
            checked = self.eval_every and progress.step % self.eval_every == 0 and progress.heldout_exact is not None
            if checked:
                self._checks.append((progress.step, float(progress.heldout_exact)))
        self._bundle = bundle
        # The first frame is the model after one update: the film starts from (nearly) untrained noise.
        if bundle is not None and (progress.step % self.every == 0 or not self._frames):
            self.record_frame(bundle, progress.step, progress.loss, progress.heldout_exact)

    def finish(self) -> None:
        """Record the last step's frame if training ended between frames."""
        with self._lock:
            steps = self._curves["step"]
            last_step = int(steps[-1]) if steps else None
            done = not self._frames or last_step is None or self._frames[-1][0] == last_step
        if not done and self._bundle is not None:
            self.record_frame(self._bundle, last_step, self._curves["loss"][-1], self._checks[-1][1] if self._checks else None)

    @property
    def n_frames(self) -> int:
        with self._lock:
            return len(self._frames)

    def film(self) -> Film | None:
        """The film so far (a copy, safe to read while training goes on); None before the first frame."""
        with self._lock:
            if not self._frames or self._tokens is None:
                return None
            kinds = list(self._frames[0][3])
            return Film(
                self.source,
                self.target,
                tuple(self._tokens[0]),
                tuple(self._tokens[1]),
                np.array([f[0] for f in self._frames], dtype=np.int32),
                np.array([f[1] for f in self._frames], dtype=np.float32),
                np.array([f[2] for f in self._frames], dtype=np.float32),
                {kind: np.stack([f[3][kind] for f in self._frames]) for kind in kinds},
                {name: np.array(values, dtype=np.float32) for name, values in self._curves.items()},
                np.array(self._checks, dtype=np.float32).reshape(-1, 2),
                dict(self._config),
            )
