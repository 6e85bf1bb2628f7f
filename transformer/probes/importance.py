"""Which heads matter: ablate each attention head in turn and see what the model loses.

For every (kind, layer, head) of a model, on a fixed, seeded held-out sample of its task:
- `changed`: the share of examples whose greedy output changes when the head's output z is zeroed
  (`zero_head` at `hook_z`: the head contributes nothing to W^O);
- `logprob_drop`: the mean drop in log-probability of the right output (teacher-forced on the
  reference target, <eos> included), intact minus ablated; positive = the head helped;
- `alignment`: how often the head's arg-max over source positions is the source word the row's token
  translates (`evaluate.cross_attention_alignment`): cross-attention heads of an encoder-decoder model,
  the self-attention heads (reading the prompt) of a decoder-only one; only for tasks with an alignment.

The output is what `evaluate.greedy_completions` compares, so importance and the card's exact match
judge alike: for an encoder-decoder model the greedy output; for a decoder-only model the greedy
completion after its prompt (`english =` → 中文), cut to the reference's length when the model has
no <eos> to stop on (induction continues a repeat for ever). Its log-probability is taken on the
completion only, even where the model was also trained to predict its prompt (induction).

Most heads of a small trained model can be removed one at a time without changing a single output;
a teacher should be shown the few that cannot. The shipped models store this table next to their
weights (`importance.json`, regenerate with `python -m transformer importance --model NAME`);
random models compute it on demand (pass `progress` to follow it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from hook_names import attn_module, head_label
from transformer.hooks import intervene
from transformer.interventions import InterventionSpec, build_interventions
from transformer.storage.checkpoint import ModelBundle, attention_kinds
from transformer.storage.registry import MODELS_DIR
from transformer.tasks import Example, get_task
from transformer.text.prompt import prompt_format
from transformer.text.tokenizer import PAD_ID
from transformer.training.evaluate import Batch, cross_attention_alignment, greedy_completions, make_batch, prompt_prefix

IMPORTANCE_JSON = "importance.json"

Progress = Callable[[int, int], None]
"""Called as progress(done, total) after each head (and once with done = 0 before the first)."""


@dataclass(frozen=True)
class HeadScore:
    kind: str  # "encoder", "decoder" (self-attention) or "cross"
    layer: int
    head: int
    changed: float  # share of the sample whose greedy output changes without this head
    logprob_drop: float  # mean log p(right output) intact − ablated (nats); > 0: the head helps
    # share of aligned rows whose arg-max is the gold source: cross-attention, or a decoder-only model's self-attention
    alignment: float | None = None

    @property
    def module(self) -> str:
        return attn_module(self.kind, self.layer)

    @property
    def label(self) -> str:
        """How cards name this head: "decoder.layers.1.cross_attn head 3" (`hook_names.head_label`)."""
        return head_label(self.kind, self.layer, self.head)


@dataclass(frozen=True)
class HeadImportance:
    """Every head's score on one sample; JSON-serialisable with `to_dict` / `from_dict`."""

    model: str
    task: str
    n: int
    seed: int
    split: str
    fingerprint: str  # of the weights: a stored table is only used for the model it was computed on
    baseline_exact: float  # share of the sample the intact model gets exactly right
    heads: tuple[HeadScore, ...]

    def score(self, kind: str, layer: int, head: int) -> HeadScore:
        for s in self.heads:
            if (s.kind, s.layer, s.head) == (kind, layer, head):
                return s
        raise KeyError(f"no head {kind} layer {layer} head {head} in this table")

    def important(self, kind: str | None = None) -> tuple[HeadScore, ...]:
        """Heads whose removal changes at least one output, most telling first."""
        chosen = [s for s in self.heads if s.changed > 0 and kind in (None, s.kind)]
        return tuple(sorted(chosen, key=lambda s: (-s.changed, -s.logprob_drop)))

    def alignment_head(self) -> HeadScore | None:
        """The head whose arg-max most often hits the gold alignment (cross-attention when the model has it), if known."""
        scored = [s for s in self.heads if s.alignment is not None and s.kind == "cross"]
        scored = scored or [s for s in self.heads if s.alignment is not None]
        return max(scored, key=lambda s: s.alignment or 0.0) if scored else None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["heads"] = [asdict(s) for s in self.heads]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HeadImportance:
        heads = tuple(HeadScore(**h) for h in data["heads"])
        return cls(**{**data, "heads": heads})


def fingerprint(bundle: ModelBundle) -> str:
    """A short hash of the model's weights (float32 bytes, in state-dict order)."""
    digest = hashlib.sha256()
    for name, tensor in bundle.model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().float().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def task_name(bundle: ModelBundle) -> str:
    return str(bundle.card.get("task", "")) or str(bundle.card.get("data", {}).get("name", ""))


def sample(bundle: ModelBundle, n: int, seed: int) -> list[Example]:
    """The fixed held-out sample: `n` examples of the model's task, seeded.

    Raises:
        ValueError: if the model has no task (a random model: pass `examples` instead).
    """
    name = task_name(bundle)
    try:
        task = get_task(name)
    except ValueError:
        raise ValueError(f"model {bundle.name!r} has no task to sample from ({name!r}); pass examples instead") from None
    return task.examples(n, "heldout", seed)


def _outputs(bundle: ModelBundle, examples: Sequence[Example], specs: Sequence[InterventionSpec]) -> list[list[int]]:
    """Greedy outputs of every example under `specs`, as `evaluate` compares them (`greedy_completions`)."""
    with intervene(bundle.model, build_interventions(specs)):
        return [got for got, _ in greedy_completions(bundle, examples)]


def _completion_labels(bundle: ModelBundle, batch: Batch, examples: Sequence[Example]) -> torch.Tensor:
    """(B, T) labels of the right output only: a decoder-only model's prompt positions → <pad>.

    Induction is trained to predict its prompt too (random symbols: nothing to learn there); the right
    output whose log-probability a head may lower is the completion."""
    fmt = prompt_format(bundle)
    if fmt is None:
        return batch.tgt_out
    labels = batch.tgt_out.clone()
    for b, example in enumerate(examples):
        labels[b, : len(prompt_prefix(bundle, fmt, example.source)) - 1] = PAD_ID  # position t predicts token t + 1
    return labels


@torch.no_grad()
def _logprobs(bundle: ModelBundle, batch: Batch, labels: torch.Tensor, specs: Sequence[InterventionSpec]) -> torch.Tensor:
    """(B,) log-probability of each example's right output (`labels`, <pad> ignored), teacher-forced under `specs`."""
    with intervene(bundle.model, build_interventions(specs)):
        logp = bundle.model(batch.src, batch.tgt_in).log_softmax(-1)  # (B, Tt, vocab)
    picked = logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1)  # (B, Tt)
    return picked.masked_fill(labels == PAD_ID, 0.0).sum(-1)  # (B,)


def compute_importance(
    bundle: ModelBundle,
    n: int = 50,
    seed: int = 0,
    *,
    examples: Sequence[Example] | None = None,
    progress: Progress | None = None,
) -> HeadImportance:
    """Ablate every attention head in turn on a held-out sample and score it (see the module docstring).

    Args:
        n, seed: the sample drawn from the model's task (`sample`), unless `examples` are given.
        examples: examples to use instead (e.g. for a random model, which has no task).
        progress: called as progress(done, total) as heads are scored.
    """
    chosen = list(examples) if examples is not None else sample(bundle, n, seed)
    if not chosen:
        raise ValueError("head importance needs at least one example")
    model, config = bundle.model, bundle.config
    was_training = model.training
    model.eval()
    try:
        batch = make_batch(bundle, chosen)
        labels = _completion_labels(bundle, batch, chosen)
        base = greedy_completions(bundle, chosen)
        base_out, base_logp = [got for got, _ in base], _logprobs(bundle, batch, labels, ())
        exact = sum(got == want for got, want in base) / len(chosen)
        kinds = attention_kinds(bundle)
        keys = [(kind, layer, head) for kind in kinds for layer in range(config.n_layers) for head in range(config.n_heads)]
        if progress:
            progress(0, len(keys))
        has_alignment = any(e.alignment for e in chosen)
        alignment = cross_attention_alignment(bundle, chosen) if has_alignment else {}
        heads = []
        for done, (kind, layer, head) in enumerate(keys, start=1):
            spec = InterventionSpec("zero_output", HeadScore(kind, layer, head, 0, 0).module, head=head)
            out, logp = _outputs(bundle, chosen, (spec,)), _logprobs(bundle, batch, labels, (spec,))
            changed = sum(a != b for a, b in zip(out, base_out, strict=True)) / len(chosen)
            align = alignment.get(head_label(kind, layer, head))  # keys: the heads that read the source
            heads.append(
                HeadScore(
                    kind,
                    layer,
                    head,
                    round(changed, 4),
                    round(float((base_logp - logp).mean()), 4),
                    None if align is None else round(align, 4),
                )
            )
            if progress:
                progress(done, len(keys))
    finally:
        model.train(was_training)
    return HeadImportance(
        bundle.name,
        task_name(bundle) or "examples",
        len(chosen),
        seed,
        "heldout" if examples is None else "given",
        fingerprint(bundle),
        round(exact, 4),
        tuple(heads),
    )


def save_importance(result: HeadImportance, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out


def load_importance(bundle: ModelBundle, root: Path = MODELS_DIR) -> HeadImportance | None:
    """The stored table of a shipped model, or None if there is none, it is unreadable, or it was
    computed on other weights (a retrained model: regenerate it)."""
    path = root / bundle.name / IMPORTANCE_JSON
    try:
        result = HeadImportance.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return result if result.fingerprint == fingerprint(bundle) else None
