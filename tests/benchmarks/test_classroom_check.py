"""The classroom benchmark's reply check can fail: a reply showing another student's sentence is a leak."""

import json

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.classroom import Expected, check_reply


def _expected(sentence: str) -> Expected:
    words = (*sentence.split(), "<eos>")
    return Expected(
        sentence,
        " · ".join(words),
        sentence.upper(),
        frozenset({tuple(w.replace("<", "&lt;").replace(">", "&gt;") for w in words)}),
    )


def _reply(shown: Expected, axis: tuple[str, ...]) -> list[ForwardMsg]:
    messages = []
    for text in (shown.output, shown.src):
        message = ForwardMsg()
        message.delta.new_element.code.code_text = text
        messages.append(message)
    chart = ForwardMsg()
    chart.delta.new_element.plotly_chart.spec = json.dumps({"layout": {"xaxis": {"ticktext": list(axis)}}})
    finished = ForwardMsg()
    finished.script_finished = ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY
    return [*messages, chart, finished]


def test_own_reply_passes_and_a_neighbours_is_a_leak():
    mine, theirs = _expected("the cat eats a fish"), _expected("i read a book")
    others = {theirs.src: theirs}
    assert check_reply(_reply(mine, next(iter(mine.axes))), mine, others) == (None, False)
    error, leaked = check_reply(_reply(theirs, next(iter(theirs.axes))), mine, others)
    assert error and leaked
    error, leaked = check_reply(_reply(mine, next(iter(theirs.axes))), mine, others)  # one chart from the neighbour
    assert error and leaked
