"""The lesson's live answers follow the model: each is checked against a second way of computing it."""

from __future__ import annotations

import numpy as np
import pytest

from runs import lesson
from runs.experiments import InterventionChoice
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text
from transformer.probes.causal import causal_experiment
from transformer.storage.registry import MODELS_DIR
from transformer.tasks import get_task

SENTENCES = ("i read a book in the library today", "the teacher reads a letter at home")


def _natural(name: str) -> tuple[str, tuple[str, ...]]:
    """Two held-out pairs of a natural translator's corpus (issue 20: the lesson stays true beyond its example)."""
    task = get_task(name)
    return name, tuple(e.source for e in task.examples(2, split="heldout", seed=5))


CASES = [("translate-en-zh", SENTENCES)] + [_natural(n) for n in ("en-zh", "zh-en") if (MODELS_DIR / n).is_dir()]


@pytest.fixture(scope="module", params=CASES, ids=[name for name, _ in CASES])
def case(request):
    return request.param


@pytest.fixture(scope="module")
def bundle(case):
    return load_bundle(ModelRef.parse(case[0]))


@pytest.fixture(scope="module")
def texts(case):
    return case[1]


@pytest.fixture(scope="module")
def traces(bundle, texts):
    return {text: run_text(bundle, text) for text in texts}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, 1), ("1", 1), ("13", 13), ("7", 7), ("0", 1), ("14", 1), ("-3", 1), ("abc", 1), ("9" * 50, 1), (" 4 ", 4)],
)
def test_step_number_is_range_checked(raw, expected):
    assert lesson.step_number(raw) == expected


def test_every_step_is_one_record_of_numbers_words_and_class_question():
    """The registry's record is the step: its words are found from it (no list beside it to keep in step)."""
    import importlib

    words = importlib.import_module(lesson.WORDS_MODULE)
    assert tuple(step.name for step in lesson.LESSON) == lesson.STEPS and len(set(lesson.STEPS)) == len(lesson.STEPS)
    for n, step in enumerate(lesson.LESSON, start=1):
        assert lesson.lesson_step(step.name) is step and step.number == n
        assert callable(step.numbers) and callable(step.question), step.name
        assert callable(getattr(words, step.words, None)), (step.name, step.words)


def test_steps_are_the_issue_order():
    assert len(lesson.STEPS) == 13
    assert lesson.STEPS[0] == "task" and lesson.STEPS[-1] == "recap"
    assert lesson.STEPS.index("positional") < lesson.STEPS.index("attention") < lesson.STEPS.index("masks")


def test_attention_answer_is_the_softmax_argmax(bundle, traces):
    for trace in traces.values():
        numbers = lesson.attention_numbers(bundle, trace)
        view = lesson.step_view(trace)  # the step-by-step view recomputes softmax(q·k/√d_k) from q and k
        key = int(view.keys[int(np.argmax(view.weights))])
        assert numbers.key_index == key
        assert numbers.key == trace.key_tokens("encoder")[key]


def test_heads_answer_is_a_run_without_the_head(bundle, traces, texts):
    text = texts[0]
    numbers = lesson.heads_numbers(bundle, traces[text])  # its own run with the head's output zeroed
    choice = numbers.choice
    assert choice == lesson.important_head(bundle, traces[text])
    again = run_text(
        bundle,
        text,
        interventions=InterventionChoice(ablate=(choice.kind, choice.layer, choice.head)).specs(bundle.config.n_layers),
    )
    assert numbers.after == again.output_text
    assert numbers.before == traces[text].output_text
    assert (numbers.changed > 0) == (numbers.before != numbers.after)


def test_mask_answer_is_the_causal_experiment(bundle, traces, texts):
    trace = traces[texts[0]]
    numbers = lesson.mask_numbers(bundle, trace)
    exp = causal_experiment(bundle, trace.text, trace.output_text)
    assert numbers.changed == exp.generation_changed
    assert numbers.rows == exp.n_changed and numbers.n_rows == len(exp.positions)


def test_cross_answer_follows_the_sentence(bundle, traces):
    answers = []
    for trace in traces.values():
        numbers = lesson.cross_numbers(bundle, trace)
        choice = numbers.choice
        assert choice == lesson.cross_head(bundle, trace)
        pattern = trace.pattern("cross", choice.layer)[choice.head]
        assert numbers.reads == trace.src_tokens[int(pattern[numbers.row].argmax())]
        assert numbers.writes == trace.next_tokens[numbers.row]
        answers.append((numbers.writes, numbers.reads))
    assert answers[0] != answers[1]


def test_layernorm_answer_normalises(bundle, traces, texts):
    numbers = lesson.layernorm_numbers(bundle, traces[texts[0]])
    assert numbers.out_mean < 1e-4
    assert abs(numbers.out_std_min - 1) < 1e-3 and abs(numbers.out_std_max - 1) < 1e-3
    assert abs(numbers.in_std_min - 1) > 0.01 or abs(numbers.in_std_max - 1) > 0.01  # the input was not normalised already


def test_path_lengths_and_answer(bundle, traces, texts):
    lengths = lesson.path_lengths(5)
    assert np.array_equal(lengths, lengths.T) and not lengths.diagonal().any() and lengths[0, 4] == 4
    trace = traces[texts[0]]
    numbers = lesson.why_attention_numbers(bundle, trace)
    assert 1 <= numbers.rnn < len(trace.src_tokens) and numbers.attention == 1
    if texts == SENTENCES:  # one token a word: n words are n − 1 steps apart
        assert numbers.rnn == len(texts[0].split()) - 1


def test_output_probabilities_are_probabilities(bundle, traces, texts):
    trace = traces[texts[0]]
    probs = lesson.output_probabilities(trace)
    assert [w for w, _ in probs][:-1] == list(trace.output_tokens)
    assert all(0 < p <= 1 for _, p in probs)
    numbers = lesson.architecture_numbers(bundle, trace)
    assert numbers.p == min(p for _, p in probs)


def test_random_model_answers():
    bundle = load_bundle(ModelRef.random())
    trace = run_text(bundle, SENTENCES[0])
    assert lesson.important_head(bundle, trace).kind in trace.kinds()
    assert lesson.mask_numbers(bundle, trace).changed is None  # untrained: not generated
    assert not lesson.has_importance(bundle)


def test_positional_answer_names_every_tied_position():
    """The sinusoids make position 10 exactly as like 9 as 11: both are the answer, not whichever argmax met first."""
    numbers = lesson.table_positions(lesson.positional_table(64))
    assert numbers.nearest == (9, 11) and numbers.farthest == (49,)
    table = np.eye(12, dtype=np.float32)
    table[3] = table[10] + 0.1 * table[3]  # position 3 nearly copies 10: alone, no tie
    assert lesson.table_positions(table).nearest == (3,)


def test_a_learned_position_table_is_the_one_the_lesson_reads():
    bundle = load_bundle(ModelRef.parse("induction"))  # positional = "learned"
    table, learned = lesson.model_positions(bundle)
    assert learned and table.shape == (lesson.PE_POSITIONS, bundle.config.d_model)
    assert not np.allclose(table, lesson.positional_table(bundle.config.d_model))


def test_a_decoder_only_models_probabilities_are_its_output_rows_only():
    bundle = load_bundle(ModelRef.parse("gpt-translate-en-zh"))
    trace = run_text(bundle, SENTENCES[0])
    probs = lesson.output_probabilities(trace)
    assert [w for w, _ in probs] == [*trace.output_tokens, "<eos>"]  # not the prompt's rows
    assert lesson.task_alignment(bundle, trace) is not None  # the prompt's words: step 1 draws its figure


def test_induction_is_judged_on_the_part_the_task_defines():
    bundle = load_bundle(ModelRef.parse("induction"))
    trace = run_text(bundle, str(bundle.card["example"]))
    numbers = lesson.task_numbers(bundle, trace)
    assert numbers.correct and numbers.output == numbers.expected  # not the 64-character loop
    assert numbers.more == len(trace.output_tokens) - len(str(numbers.expected))


def test_parameter_groups_count_every_parameter_once(bundle, texts):
    groups = lesson.parameter_groups(bundle)
    sizes = lesson.feed_forward_numbers(bundle, run_text(bundle, texts[1]))
    assert sum(groups.values()) == sizes.total
    assert groups["feed_forward"] == sizes.ffn_params and groups["attention"] == sizes.attn_params
