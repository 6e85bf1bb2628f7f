"""Training a model on a toy task with the paper's recipe (section 5).

Adam (β1=0.9, β2=0.98, ε=1e-9), the warmup / inverse-square-root learning rate (`schedule.py`),
label smoothing (0.1) and dropout (from the config). Batches are drawn on the fly from the task's
training split, bucketed by length. Every `eval_every` steps the model greedy-decodes a fixed
held-out sample and training stops early once its exact-match reaches `target_exact`.

    result = train(TrainSettings(task="reverse", steps=3000), callback=print)
    save_trained(result, "assets/models/reverse")

The command line (`python -m transformer train ...` / `eval ...`) is in `transformer/cli/train.py`.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from transformer.config import TransformerConfig
from transformer.hooks import intervene
from transformer.interventions import build_interventions, no_causal_specs
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import check_seed
from transformer.text.tokenizer import PAD_ID, SENTENCE_PUNCTUATION, CharTokenizer, Tokenizer, WordTokenizer
from transformer.training.evaluate import EvalResult, evaluate, make_batch
from transformer.training.schedule import noam_optimizer, noam_rate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainSettings:
    """Everything that determines a training run: the same settings give the same weights."""

    task: str
    steps: int = 3000  # upper bound; early stopping may end sooner
    config: dict[str, Any] = field(default_factory=dict)  # TransformerConfig overrides (vocab sizes are set from the task)
    seed: int = 0
    batch_size: int = 64
    warmup: int = 400  # the paper uses 4000 for 100k steps; our runs are ~50x shorter
    lr_factor: float = 1.0
    label_smoothing: float = 0.1
    causal_mask: bool = True  # False lifts the decoder's causal mask in training (the experiment that shows why it exists)
    eval_every: int = 500  # steps between held-out checks (0: never)
    eval_n: int = 200  # held-out examples in each periodic check
    target_exact: float = 1.0  # stop early once the periodic check reaches this exact-match (> 1: never)
    bucket_pool: int = 8  # batches drawn at once and sorted by length, so a batch holds similar lengths
    init_from: str | None = None  # a checkpoint folder to continue from (fresh optimizer and schedule)
    task_options: dict[str, Any] = field(default_factory=dict)  # task fields to change, e.g. {"max_len": 12} for a first stage
    # bfloat16 autocast for the forward pass (weights, gradients and Adam stay float32): on a CPU with
    # AVX-512 BF16 a step of the natural translators takes about 1.6x less time; the saved model is float32.
    bf16: bool = False
    # Where the steps run: "cpu", or "cuda" on a machine with a GPU. Held-out checks and the saved model are on the CPU.
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "warmup", "eval_n", "bucket_pool"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.eval_every < 0:
            raise ValueError(f"eval_every must be >= 0, got {self.eval_every}")
        if not 0.0 <= self.label_smoothing < 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1), got {self.label_smoothing}")
        device = torch.device(self.device)  # a RuntimeError names a bad device string
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {self.device!r} asked for, but this machine's torch sees no CUDA GPU")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class TrainProgress:
    """What the progress callback sees after each step."""

    step: int
    total_steps: int
    loss: float  # this batch's label-smoothed cross-entropy
    token_accuracy: float  # this batch's teacher-forced next-token accuracy (non-pad positions)
    learning_rate: float
    elapsed: float  # seconds since training started
    heldout_exact: float | None = None  # the latest periodic held-out exact-match, if any
    # The model being trained, for callbacks that look inside it (training films); read it, never change it.
    bundle: ModelBundle | None = field(default=None, repr=False, compare=False)


ProgressCallback = Callable[[TrainProgress], "bool | None"]


@dataclass
class TrainResult:
    bundle: ModelBundle
    settings: TrainSettings
    steps: int  # steps actually taken
    training_seconds: float
    stop_reason: str  # "completed", "target reached" or "stopped"
    losses: list[float]
    checks: list[tuple[int, float]]  # (step, held-out exact-match) of each periodic check


def tokenizers_for(task: Any) -> tuple[Tokenizer, Tokenizer]:
    """(source, target) tokenizers built from the task's sorted vocabularies.

    Char tasks read user-perceived characters (an emoji with a skin tone is one symbol, as the task counts
    it); word tasks ignore a teacher's sentence punctuation, and a source the task segments by its lexicon
    (Chinese, spaces optional) is segmented the same way by the tokenizer.
    A decoder-only task gets one tokenizer for both (its model reads and writes one sequence).
    """
    from transformer.tasks.decoder_only import is_decoder_only

    if hasattr(task, "tokenizers"):  # a corpus task builds its own (subword English, Chinese characters)
        return task.tokenizers()
    segmented = bool(getattr(task, "segmented_source", False))
    if is_decoder_only(task):
        # the prompt is typed by a teacher as the word translators' source is: the same punctuation is ignored
        shared: Tokenizer = (
            CharTokenizer(task.vocabulary())
            if task.level == "char"
            else WordTokenizer(task.vocabulary(), ignored=SENTENCE_PUNCTUATION, segment=segmented)
        )
        return shared, shared
    if task.level == "char":
        shared = CharTokenizer(task.source_vocabulary(), graphemes=True)
        return shared, shared
    source = WordTokenizer(task.source_vocabulary(), ignored=SENTENCE_PUNCTUATION, segment=segmented)
    return source, WordTokenizer(task.target_vocabulary())


def task_with_options(task: Any, options: dict[str, Any]) -> Any:
    """`task` with some of its dataclass fields changed (a curriculum stage trains on shorter strings, say).

    Raises:
        ValueError: for a field the task does not have.
    """
    if not options:
        return task
    known = {f.name for f in dataclasses.fields(task)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"task {task.name!r} has no option {', '.join(unknown)}; it has {', '.join(sorted(known))}")
    return dataclasses.replace(task, **options)


def build_bundle(task: Any, settings: TrainSettings) -> ModelBundle:
    """A freshly initialized model (seeded by the caller) with the task's tokenizers.

    The architecture follows the task: sequence-to-sequence tasks train an encoder-decoder, decoder-only
    tasks (`tasks.decoder_only`) a decoder-only model whose card carries the task's prompt format.
    """
    from transformer.tasks.decoder_only import is_decoder_only
    from transformer.text.prompt import CARD_KEY

    source, target = tokenizers_for(task)
    sizes = {"src_vocab_size": len(source), "tgt_vocab_size": len(target)}
    if is_decoder_only(task):
        overrides = {**settings.config, **sizes, "architecture": settings.config.get("architecture", "decoder-only")}
        config = TransformerConfig.from_dict(overrides)
        if config.is_encoder_decoder:
            raise ValueError(f"task {settings.task!r} is a decoder-only language-model task: train a decoder-only model")
        card = {CARD_KEY: task.prompt_format.to_dict()}
        return ModelBundle(Transformer(config), target, None, card, name=settings.task)
    config = TransformerConfig.from_dict({**settings.config, **sizes})
    if not config.is_encoder_decoder:
        raise ValueError("the toy tasks are sequence-to-sequence: train an encoder-decoder model")
    return ModelBundle(Transformer(config), target, source, name=settings.task)


def train_examples(task: Any, rng: random.Random) -> Iterator[Any]:
    """An endless stream of examples from the task's training split (held-out sources are skipped)."""
    while True:
        example = task.sample(rng)
        if not task.is_heldout(example.source):
            yield example


def bucketed_batches(examples: Iterator[Any], rng: random.Random, batch_size: int, pool: int) -> Iterator[list[Any]]:
    """Draw `pool` batches' worth of examples, sort by length, cut into batches, shuffle the batches."""
    while True:
        drawn = sorted((next(examples) for _ in range(batch_size * pool)), key=lambda e: len(e.source))
        batches = [drawn[i : i + batch_size] for i in range(0, len(drawn), batch_size)]
        rng.shuffle(batches)
        yield from batches


def train(settings: TrainSettings, callback: ProgressCallback | None = None, task: Any = None) -> TrainResult:
    """Train a model from scratch; deterministic for given settings (on the same thread count).

    Args:
        settings: the task, model config and recipe.
        callback: called after every step with a `TrainProgress`; returning False stops training.
        task: a task object to use instead of looking `settings.task` up (for tests).
    """
    if task is None:
        from transformer.tasks import get_task

        task = get_task(settings.task)
    task = task_with_options(task, settings.task_options)
    torch.manual_seed(check_seed(settings.seed))
    data_rng = random.Random(settings.seed)
    bundle = build_bundle(task, settings)
    if settings.init_from is not None:
        _continue_from(bundle, settings.init_from)
    model, d_model = bundle.model, bundle.config.d_model
    device = torch.device(settings.device)
    model.to(device)
    heldout = task.examples(settings.eval_n, split="heldout", seed=settings.seed) if settings.eval_every else []
    optimizer, scheduler = noam_optimizer(model.parameters(), d_model, settings.warmup, settings.lr_factor)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=settings.label_smoothing)
    batches = bucketed_batches(train_examples(task, data_rng), data_rng, settings.batch_size, settings.bucket_pool)
    # Without the causal mask, training (only training: held-out checks generate as usual) lets each position read ahead.
    lifted = {} if settings.causal_mask else build_interventions(no_causal_specs(bundle.config.n_layers))
    losses: list[float] = []
    checks: list[tuple[int, float]] = []
    stop_reason, step, latest = "completed", 0, None
    start = time.perf_counter()
    model.train()
    for step in range(1, settings.steps + 1):
        batch = make_batch(bundle, next(batches))
        src = None if batch.src is None else batch.src.to(device)  # (B, Ts)
        tgt_in, tgt_out = batch.tgt_in.to(device), batch.tgt_out.to(device)  # (B, Tt) each
        with intervene(model, lifted), torch.autocast(device.type, dtype=torch.bfloat16, enabled=settings.bf16):
            logits = model(src, tgt_in).float()  # (B, Tt, vocab)
        loss = criterion(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        with torch.no_grad():
            real = tgt_out != PAD_ID  # (B, Tt): labels that count (not padding, not a given prompt)
            accuracy = ((logits.argmax(-1) == tgt_out) & real).sum().item() / max(real.sum().item(), 1)
        losses.append(loss.item())
        if settings.eval_every and step % settings.eval_every == 0:
            model.to("cpu")  # decoding builds its tensors on the CPU; the optimizer's state stays where it is
            latest = evaluate(bundle, heldout).exact_match
            model.to(device)
            checks.append((step, latest))
            log.debug("step %d: held-out exact-match %.4f", step, latest)
        progress = TrainProgress(
            step,
            settings.steps,
            losses[-1],
            accuracy,
            noam_rate(step, d_model, settings.warmup, settings.lr_factor),
            time.perf_counter() - start,
            latest,
            bundle,
        )
        if callback is not None and callback(progress) is False:
            stop_reason = "stopped"
            break
        if latest is not None and checks[-1][0] == step and latest >= settings.target_exact:
            stop_reason = "target reached"
            break
    model.eval()
    model.to("cpu")
    return TrainResult(bundle, settings, step, time.perf_counter() - start, stop_reason, losses, checks)


def _continue_from(bundle: ModelBundle, folder: str) -> None:
    """Start from a trained checkpoint's weights, e.g. a second, lower-learning-rate stage.

    The vocabulary may grow (a task's alphabet gained characters): every symbol the checkpoint knew keeps its
    embedding and output row, wherever the larger sorted vocabulary puts it, and only the new symbols start
    from their fresh initialisation, so the stage learns the new symbols rather than the whole task again.
    """
    from transformer.storage.checkpoint import load_checkpoint

    start = load_checkpoint(folder)
    sizes = {"src_vocab_size": bundle.config.src_vocab_size, "tgt_vocab_size": bundle.config.tgt_vocab_size}
    pairs = [(start.target_tokenizer, bundle.target_tokenizer), (start.source_tokenizer, bundle.source_tokenizer)]
    if dataclasses.replace(start.config, **sizes) != bundle.config or not all(
        _extends(old, new) for old, new in pairs if old is not None and new is not None
    ):
        raise ValueError(f"{folder} was trained with another config or vocabulary; it cannot be continued here")
    fresh = bundle.model.state_dict()
    state = {}
    for name, weight in start.model.state_dict().items():
        if weight.shape == fresh[name].shape:
            state[name] = weight
        else:  # a row per symbol (embedding, output projection and its bias): move each known row to its new id
            old, new = pairs[1] if name.startswith("src_embed.") else pairs[0]
            rows = fresh[name].clone()
            rows[torch.tensor([new.index[s] for s in old.vocab])] = weight
            state[name] = rows
    bundle.model.load_state_dict(state)


def _extends(old: Tokenizer, new: Tokenizer) -> bool:
    """Whether `new` reads text as `old` did, with every symbol of `old` and perhaps more."""
    return (
        type(old) is type(new)
        and old.to_dict().get("options") == new.to_dict().get("options")
        and set(old.vocab) <= set(new.vocab)
    )


def heldout_metrics(bundle: ModelBundle, task: Any, n: int = 1000, seed: int = 12345) -> EvalResult:
    """The held-out evaluation reported in model cards (a fixed sample, independent of the training seed)."""
    return evaluate(bundle, task.examples(n, split="heldout", seed=seed))
