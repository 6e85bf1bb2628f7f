"""The lesson's live answers follow the model: each is checked against a second way of computing it."""

from __future__ import annotations

import numpy as np
import pytest

from runs import lesson
from runs.experiments import InterventionChoice
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text
from transformer.causal import causal_experiment
from transformer.registry import MODELS_DIR
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


def test_every_step_has_its_numbers_words_and_class_question_under_one_name():
    from runs.class_questions import QUESTIONS
    from ui.pages.lesson.steps import BUILDERS

    assert tuple(lesson.STEP_NUMBERS) == tuple(BUILDERS) == tuple(QUESTIONS) == lesson.STEPS


def test_steps_are_the_issue_order():
    assert len(lesson.STEPS) == 13
    assert lesson.STEPS[0] == "task" and lesson.STEPS[-1] == "recap"
    assert lesson.STEPS.index("positional") < lesson.STEPS.index("attention") < lesson.STEPS.index("masks")


def test_attention_answer_is_the_softmax_argmax(traces):
    for trace in traces.values():
        answer = lesson.attention_answer(trace)
        view = lesson.step_view(trace)  # the step-by-step view recomputes softmax(q·k/√d_k) from q and k
        key = int(view.keys[int(np.argmax(view.weights))])
        assert answer["key_index"] == key
        assert answer["key"] == trace.key_tokens("encoder")[key]


def test_heads_answer_is_a_run_without_the_head(bundle, traces, texts):
    text = texts[0]
    choice = lesson.important_head(bundle, traces[text])
    ablated = run_text(bundle, text, interventions=lesson.ablation_specs(choice))
    again = run_text(
        bundle,
        text,
        interventions=InterventionChoice(ablate=(choice.kind, choice.layer, choice.head)).specs(bundle.config.n_layers),
    )
    answer = lesson.heads_answer(traces[text], ablated, choice)
    assert answer["after"] == again.output_text
    assert answer["before"] == traces[text].output_text
    assert (answer["changed"] > 0) == (answer["before"] != answer["after"])


def test_mask_answer_is_the_causal_experiment(bundle, traces, texts):
    trace = traces[texts[0]]
    answer = lesson.mask_answer(bundle, trace)
    exp = causal_experiment(bundle, trace.text, trace.output_text)
    assert answer["changed"] == exp.generation_changed
    assert answer["rows"] == exp.n_changed and answer["n_rows"] == len(exp.positions)


def test_cross_answer_follows_the_sentence(bundle, traces):
    answers = []
    for trace in traces.values():
        choice = lesson.cross_head(bundle, trace)
        answer = lesson.cross_answer(trace, choice)
        pattern = trace.pattern("cross", choice.layer)[choice.head]
        assert answer["reads"] == trace.src_tokens[int(pattern[answer["row"]].argmax())]
        assert answer["writes"] == trace.next_tokens[answer["row"]]
        answers.append((answer["writes"], answer["reads"]))
    assert answers[0] != answers[1]


def test_layernorm_answer_normalises(bundle, traces, texts):
    answer = lesson.layernorm_answer(bundle, traces[texts[0]])
    assert answer["out_mean"] < 1e-4
    assert abs(answer["out_std_min"] - 1) < 1e-3 and abs(answer["out_std_max"] - 1) < 1e-3
    assert abs(answer["in_std_min"] - 1) > 0.01 or abs(answer["in_std_max"] - 1) > 0.01  # the input was not normalised already


def test_path_lengths_and_answer(traces, texts):
    lengths = lesson.path_lengths(5)
    assert np.array_equal(lengths, lengths.T) and not lengths.diagonal().any() and lengths[0, 4] == 4
    trace = traces[texts[0]]
    answer = lesson.path_answer(trace)
    assert 1 <= answer["rnn"] < len(trace.src_tokens) and answer["attention"] == 1
    if texts == SENTENCES:  # one token a word: n words are n − 1 steps apart
        assert answer["rnn"] == len(texts[0].split()) - 1


def test_output_probabilities_are_probabilities(bundle, traces, texts):
    trace = traces[texts[0]]
    probs = lesson.output_probabilities(trace)
    assert [w for w, _ in probs][:-1] == list(trace.output_tokens)
    assert all(0 < p <= 1 for _, p in probs)
    answer = lesson.architecture_answer(bundle, trace)
    assert answer["p"] == min(p for _, p in probs)


def test_random_model_answers():
    bundle = load_bundle(ModelRef.random())
    trace = run_text(bundle, SENTENCES[0])
    assert lesson.important_head(bundle, trace).kind in trace.kinds()
    assert lesson.mask_answer(bundle, trace)["changed"] is None  # untrained: not generated
    assert not lesson.has_importance(bundle)


def test_positional_answer_names_every_tied_position():
    """The sinusoids make position 10 exactly as like 9 as 11: both are the answer, not whichever argmax met first."""
    answer = lesson.positional_answer(lesson.positional_table(64))
    assert answer["nearest"] == [9, 11] and answer["farthest"] == [49]
    table = np.eye(12, dtype=np.float32)
    table[3] = table[10] + 0.1 * table[3]  # position 3 nearly copies 10: alone, no tie
    assert lesson.positional_answer(table)["nearest"] == [3]


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
    answer = lesson.task_answer(bundle, trace)
    assert answer["correct"] and answer["output"] == answer["expected"]  # not the 64-character loop
    assert answer["more"] == len(trace.output_tokens) - len(str(answer["expected"]))


def test_parameter_groups_count_every_parameter_once(bundle, texts):
    groups = lesson.parameter_groups(bundle)
    sizes = lesson.feed_forward_shapes(bundle, run_text(bundle, texts[1]))
    assert sum(groups.values()) == sizes["total"]
    assert groups["feed_forward"] == sizes["ffn_params"] and groups["attention"] == sizes["attn_params"]
