"""cap() and Capper against the capout binary, byte for byte."""

import json

import pytest

import capout
from conftest import oracle, words

# Multi-byte characters, an invalid byte, ANSI colour, a carriage return,
# a long line, and no newline at the end.
SAMPLE = (
    b"first line\n"
    b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 error here\n"
    b"\x1b[31mred\x1b[0m text\n"
    b"progress 10%\rprogress 100%\n"
    b"invalid \xff byte\n"
    + b"x" * 60
    + b"\n"
    b"error: second error\n"
    b"a\nb\nc\nd\n"
    b"last line without newline"
)

CAPS = [
    {},
    {"tail_chars": 10},
    {"head_chars": 12},
    {"head_chars": 8, "tail_chars": 9},
    {"head_lines": 3},
    {"head_lines": 3, "offset": 2},
    {"head_lines": 2, "offset": 40},
    {"tail_lines": 3},
    {"head_lines": 2, "tail_lines": 2},
    {"max_matches": 1, "pattern": "error"},
    {"max_matches": 5, "pattern": "."},
    {"max_matches": 2, "pattern": ".", "fixed_strings": True},
    {"max_matches": 1, "pattern": "ERROR", "ignore_case": True},
    {"tail_tokens": 6},
    {"head_tokens": 6},
    {"head_tokens": 4, "tail_tokens": 4},
    {"tail_chars": 7, "bytes": True},
    {"head_chars": 7, "bytes": True},
    {"tail_chars": 40, "strip_ansi": True, "collapse_cr": True},
    {"head_lines": 5, "max_line_chars": 5},
    {"tail_lines": 4, "max_line_chars": 0},
    {"head_lines": 4, "line_numbers": True},
    {"tail_lines": 2, "keep": "error", "keep_max": 1},
    {"head_chars": 20, "keep": "error"},
    {"tail_chars": 15, "notice_format": "[{shown} of {total} {unit}]"},
    {"tail_chars": 15, "notice": "none"},
    {"profile": "read"},
    {"profile": "grep"},
    {"profile": "bash"},
    {"render": True, "render_height": 3, "render_width": 20},
]


def ids(options):
    return ",".join(f"{k}={v}" for k, v in options.items()) or "defaults"


@pytest.mark.parametrize("options", CAPS, ids=ids)
def test_cap_is_the_cli_byte_for_byte(options):
    want, _, _ = oracle(words(options), SAMPLE)
    got = capout.cap(SAMPLE, **options)
    assert got.output == want


@pytest.mark.parametrize("options", CAPS, ids=ids)
def test_capper_split_at_every_position_is_the_cli(options):
    want, _, _ = oracle(words(options), SAMPLE)
    for at in range(len(SAMPLE) + 1):
        capper = capout.Capper(**options)
        out = capper.push(SAMPLE[:at]) + capper.push(SAMPLE[at:])
        tail, _ = capper.finish()
        assert out + tail == want, f"split at {at}"


@pytest.mark.parametrize("options", CAPS, ids=ids)
def test_capper_byte_by_byte_is_the_cli(options):
    want, _, _ = oracle(words(options), SAMPLE)
    capper = capout.Capper(**options)
    out = b"".join(capper.push(SAMPLE[i : i + 1]) for i in range(len(SAMPLE)))
    tail, _ = capper.finish()
    assert out + tail == want


# The summary's facts and --json's, field by field.
FACTS = [
    "truncated", "cap", "unit", "total_bytes", "total_chars", "total_lines", "matches",
    "omitted", "first", "last", "next_offset", "total_tokens", "tokenizer", "notice",
    "saved_to", "exit_code", "signal", "timed_out",
]


@pytest.mark.parametrize("options", CAPS, ids=ids)
def test_summary_is_what_json_says(options):
    out, _, _ = oracle(words(options) + ["--json"], SAMPLE)
    want = json.loads(out)
    for summary in (capout.cap(SAMPLE, **options).summary, finished(options)):
        for fact in FACTS:
            assert getattr(summary, fact) == want[fact], fact
        limit = want["limit"]
        assert summary.limit == (tuple(limit) if isinstance(limit, list) else (limit, None))
        assert summary.error is None


def finished(options):
    capper = capout.Capper(**options)
    capper.push(SAMPLE)
    return capper.finish()[1]


def test_str_is_its_utf8():
    text = SAMPLE.decode("utf-8", "replace")
    assert capout.cap(text, tail_chars=30).output == oracle(["-c", "30"], text.encode())[0]
    capper = capout.Capper(head_lines=2)
    assert capper.push("é\nü\nz\n") + capper.finish()[0] == oracle(["-n", "2"], "é\nü\nz\n".encode())[0]


def test_defaults_are_the_clis():
    data = b"y" * 6000 + b"\n"
    got = capout.cap(data)
    assert got.output == b"y" * 4999 + b"\n... (truncated, showing last 5000 chars)\n"
    assert got.output == oracle([], data)[0]
    assert (got.summary.cap, got.summary.limit) == ("tail-chars", (5000, None))
    long_line = b"z" * 2500 + b"\n"
    assert capout.cap(long_line, head_lines=1).output == oracle(["-n", "1"], long_line)[0]
    assert b"line truncated to 2000 chars" in capout.cap(long_line, head_lines=1).output


def test_result_text_is_the_output_decoded():
    got = capout.cap(b"ok \xff\n")
    assert got.text == "ok \ufffd\n"


BAD = [
    {"tail_chars": 0},
    {"tail_chars": -3},
    {"head_lines": 2, "max_matches": 3},
    {"max_matches": 2, "pattern": "("},
    {"offset": 3},
    {"keep_max": 2},
    {"profile": "nope"},
    {"tokenizer": "nope", "tail_tokens": 3},
    {"notice": "elsewhere"},
    {"render_width": 1, "render": True},
    {"notice_format": "{nope}"},
]


@pytest.mark.parametrize("options", BAD, ids=ids)
def test_a_bad_option_raises_the_clis_message(options):
    _, err, status = oracle(words(options), b"x", check=False)
    assert status == 2
    message = err.decode().split("\n\nUsage:")[0].split("\n\nFor more information")[0].rstrip()
    assert message.startswith("error: ")
    with pytest.raises(ValueError) as raised:
        capout.cap(b"x", **options)
    assert str(raised.value) == message[len("error: ") :]
    with pytest.raises(ValueError) as raised:
        capout.Capper(**options)
    assert str(raised.value) == message[len("error: ") :]


@pytest.mark.parametrize("name", ["json", "input", "progress", "mcp", "show_config", "completions", "timeout", "nope"])
def test_an_option_the_module_has_no_use_for_is_a_type_error(name):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'"):
        capout.cap(b"x", **{name: True})


def test_a_value_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match=r"--tail-chars: expected str, int or bool, not list"):
        capout.cap(b"x", tail_chars=[1])
    with pytest.raises(TypeError, match="expected bytes or str, not int"):
        capout.cap(3)


def test_push_after_finish_is_an_error():
    capper = capout.Capper()
    capper.finish()
    with pytest.raises(RuntimeError, match="push after finish"):
        capper.push(b"x")
    with pytest.raises(RuntimeError, match="finish after finish"):
        capper.finish()


def test_summary_is_frozen():
    summary = capout.cap(b"x").summary
    with pytest.raises(AttributeError):
        summary.truncated = True


def test_save_dir_keeps_the_whole_input(tmp_path):
    data = b"".join(b"%d\n" % i for i in range(1000))
    got = capout.cap(data, tail_lines=2, save_dir=tmp_path)
    saved = got.summary.saved_to
    assert saved is not None and saved.startswith(str(tmp_path))
    assert open(saved, "rb").read() == data
    assert got.output == b"998\n999\n... (truncated, showing last 2 lines; full output: %s)\n" % saved.encode()


def test_the_version_is_the_clis():
    import subprocess

    from conftest import CAPOUT

    out = subprocess.run([CAPOUT, "--version"], capture_output=True, check=True, text=True).stdout
    assert out == f"capout {capout.__version__}\n"
    assert capout.__version__.count(".") == 2
