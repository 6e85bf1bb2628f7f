"""A token axis carries each position's raw bytes beside its label; the hover adds them for byte-level pieces only."""

from viz.tokens import TokenAxis, attention_axes


def test_the_hover_adds_a_bytes_line_only_where_there_are_bytes():
    piece = "你".encode()[:2]
    raw = " ".join(f"{b:02x}" for b in piece)
    axis = TokenAxis(("<bos>", "你 ¹⁄₂", "cat"), hex=("", raw, ""))
    names = axis.hover_labels("字节：{hex}")
    assert names == ["0: &lt;bos&gt;", f"1: 你 ¹⁄₂<br>字节：{raw}", "2: cat"]
    assert axis.hover_labels() == ["0: &lt;bos&gt;", "1: 你 ¹⁄₂", "2: cat"]  # no line asked for: the names as before


def test_bytes_that_do_not_match_the_tokens_are_dropped():
    assert TokenAxis(("a", "b"), hex=("61",)).hex is None  # a run without bytes for every position shows none


def test_a_decoder_row_gives_the_bytes_it_reads_and_writes():
    queries, keys = attention_axes("decoder", (), ("<bos>", "你 ¹⁄₂"), ("你 ¹⁄₂", "你 ²⁄₂"), ((), ("", "e4 bd"), ("e4 bd", "a0")))
    assert queries.hover_labels("bytes: {hex}")[0].endswith("<br>bytes: – → e4 bd")
    assert queries.hover_labels("bytes: {hex}")[1].endswith("<br>bytes: e4 bd → a0")
    assert keys.hex == ("", "e4 bd")
