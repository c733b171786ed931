"""`zeroclaw eval import` against what an attacker, a careless exporter or an odd agent
hands it: file names made of trace ids, secrets hidden in escapes, calls that share or
lack ids, replies missing from the trace, arguments cut short, traces split in two."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.importing.otlp_docs import (
    ANSWER,
    CALL,
    OTHER_TRACE,
    QUESTION,
    RESULT,
    TRACE,
    chat,
    document,
    execute_tool,
    message,
    text,
    tool_call,
    tool_response,
    weather_spans,
)
from tests.support.invoke import Result, invoke


def _import(tmp_path: Path, data: Any, *args: str) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(data))
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"), *args, cwd=tmp_path)


def _fixture(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _with_trace_id(spans: list[dict[str, Any]], trace_id: str) -> list[dict[str, Any]]:
    for span in spans:
        span["traceId"] = trace_id
    return spans


def test_a_trace_id_never_makes_a_path_outside_out_nor_a_second_line(tmp_path: Path) -> None:
    hostile = "/../../PWNED\n\x1b[31mrefused: fake"
    result = _import(tmp_path, document(_with_trace_id(weather_spans(), hostile)))
    assert result.code == 0, result.stderr
    (written,) = (tmp_path / "out").glob("*.json")
    assert written.name == "weather_pwned31m.json"  # letters and digits of the id only
    assert not list(tmp_path.glob("PWNED*"))
    assert not list(tmp_path.parent.glob("PWNED*"))
    # The id's line break cannot forge a line: the one written, then the note on doubles.
    lines = result.stderr.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["Wrote", "The"], lines


def test_ids_that_begin_alike_get_names_of_their_own(tmp_path: Path) -> None:
    first = _with_trace_id(weather_spans(), "session-1")
    second = _with_trace_id(weather_spans(start=1000), "session!1")
    assert _import(tmp_path, document(first + second)).code == 0
    assert len(list((tmp_path / "out").glob("*.json"))) == 2


def test_an_address_or_a_key_written_with_json_escapes_in_arguments_is_scrubbed(tmp_path: Path) -> None:
    arguments = '{"to": "alice\\u0040corp.com", "key": "sk\\u002dabcdefghijklmnopqrstuvwxyz123456"}'
    call = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "send", "arguments": arguments}],
    }
    fed = message("tool", tool_response("c1", "sent"))
    spans = [
        chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [call]),
        chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, call, fed], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    written = next((tmp_path / "out").glob("*.json")).read_text()
    assert "alice" not in written
    assert "abcdefghijklmnopqrstuvwxyz123456" not in written
    args = _fixture(tmp_path)["expects"]["trajectory"]["calls"][0]["args"]
    assert args == {"to": "zeroclaw_user@example.com", "key": "[REDACTED]"}


def test_call_ids_reused_across_steps_get_each_steps_own_result(tmp_path: Path) -> None:
    paris = message("assistant", tool_call("call_0", "get_weather", {"city": "Paris"}))
    lyon = message("assistant", tool_call("call_0", "get_weather", {"city": "Lyon"}))
    paris_result = message("tool", tool_response("call_0", "sunny in Paris"))
    lyon_result = message("tool", tool_response("call_0", "rainy in Lyon"))
    spans = [
        chat("b1b1b1b1b1b1b1b1", 1, [QUESTION], [paris]),
        chat("b2b2b2b2b2b2b2b2", 20, [QUESTION, paris, paris_result], [lyon]),
        chat("b3b3b3b3b3b3b3b3", 40, [QUESTION, paris, paris_result, lyon, lyon_result], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    needles = [check["needle"] for check in _fixture(tmp_path)["expects"]["tool_results_contain"]]
    assert needles == ["sunny in Paris", "rainy in Lyon"]


def _two_calls_without_ids() -> dict[str, Any]:
    """One reply asking for the weather in Paris and in Lyon, its calls without ids."""
    paris, lyon = ({"city": city} for city in ("Paris", "Lyon"))
    return message("assistant", tool_call("", "get_weather", paris), tool_call("", "get_weather", lyon))


def test_calls_without_ids_get_their_results_by_position(tmp_path: Path) -> None:
    both = _two_calls_without_ids()
    results = message("tool", tool_response("", "sunny in Paris"), tool_response("", "rainy in Lyon"))
    spans = [
        chat("b1b1b1b1b1b1b1b1", 1, [QUESTION], [both]),
        chat("b2b2b2b2b2b2b2b2", 40, [QUESTION, both, results], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    needles = [check["needle"] for check in _fixture(tmp_path)["expects"]["tool_results_contain"]]
    assert needles == ["sunny in Paris", "rainy in Lyon"]


def test_tool_spans_without_ids_are_matched_by_their_arguments(tmp_path: Path) -> None:
    both = _two_calls_without_ids()
    spans = [
        chat("b1b1b1b1b1b1b1b1", 1, [QUESTION], [both]),
        # Lyon's ran first: order alone would swap the results.
        execute_tool("c1c1c1c1c1c1c1c1", 20, "", "get_weather", {"city": "Lyon"}, "rainy in Lyon"),
        execute_tool("c2c2c2c2c2c2c2c2", 21, "", "get_weather", {"city": "Paris"}, "sunny in Paris"),
        chat("b2b2b2b2b2b2b2b2", 40, [QUESTION], [ANSWER]),
    ]
    result = _import(tmp_path, document(spans))
    assert result.code == 0, result.stderr
    needles = [check["needle"] for check in _fixture(tmp_path)["expects"]["tool_results_contain"]]
    assert needles == ["sunny in Paris", "rainy in Lyon"]


def test_a_model_reply_missing_from_the_trace_is_refused(tmp_path: Path) -> None:
    lyon = message("assistant", tool_call("call_2", "get_weather", {"city": "Lyon"}))
    lyon_result = message("tool", tool_response("call_2", "rainy"))
    spans = [
        chat("b1b1b1b1b1b1b1b1", 1, [QUESTION], [CALL]),
        # The request that asked for Lyon was dropped from the trace.
        chat("b3b3b3b3b3b3b3b3", 40, [QUESTION, CALL, RESULT, lyon, lyon_result], [ANSWER]),
    ]
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        "span b3b3b3b3b3b3b3b3 (chat gpt-4o): input messages: the request carries 2 model replies"
        in result.stderr
    )


def test_arguments_cut_short_while_the_tool_span_has_them_whole_are_refused(tmp_path: Path) -> None:
    cut = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": '{"city": "Pa'}],
    }
    spans = weather_spans()
    spans[1] = chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [cut])
    spans[3] = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, cut], [ANSWER])
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert "are not JSON, while the tool span c3c3c3c3c3c3c3c3 recorded them whole" in result.stderr


def test_a_user_message_of_an_image_is_refused(tmp_path: Path) -> None:
    image = {
        "role": "user",
        "parts": [{"type": "uri", "modality": "image", "uri": "https://example.com/a.png"}],
    }
    spans = [chat("b1b1b1b1b1b1b1b1", 1, [image], [ANSWER])]
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert "a user message holds no text" in result.stderr


def test_a_trace_split_across_two_files_is_one_case(tmp_path: Path) -> None:
    spans = weather_spans()
    first, second = tmp_path / "part1.jsonl", tmp_path / "part2.jsonl"
    first.write_text(json.dumps(document(spans[:2])) + "\n")
    second.write_text(json.dumps(document(spans[2:])) + "\n")
    result = invoke("eval", "import", str(first), str(second), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    fixture = _fixture(tmp_path)
    assert fixture["provenance"]["source"] == f"{first}, {second}"
    assert len(fixture["provenance"]["span_ids"]) == 3


def test_a_failed_request_the_agent_retried_is_no_step(tmp_path: Path) -> None:
    spans = weather_spans()
    failed = chat("a9a9a9a9a9a9a9a9", 0, [QUESTION], None)
    failed["status"] = {"code": 2, "message": "429 Too Many Requests"}
    result = _import(tmp_path, document([*spans, failed]))
    assert result.code == 0, result.stderr
    assert len(_fixture(tmp_path)["turns"][0]["steps"]) == 2


def _lone_calls() -> list[dict[str, Any]]:
    """An agent no span wraps: each model call is a trace of its own."""
    first = chat("b1b1b1b1b1b1b1b1", 1, [QUESTION], [CALL], trace=TRACE)
    second = chat("b2b2b2b2b2b2b2b2", 40, [QUESTION, CALL, RESULT], [ANSWER], trace=OTHER_TRACE)
    return [first, second]


def test_a_trace_another_carries_on_is_imported_with_it(tmp_path: Path) -> None:
    result = _import(tmp_path, document(_lone_calls()))
    assert result.code == 0, result.stderr
    assert f"trace {TRACE} is the start of trace {OTHER_TRACE}'s run, imported with it" in result.stderr


def test_a_trace_whose_continuation_is_not_selected_is_not_said_imported(tmp_path: Path) -> None:
    result = _import(tmp_path, document(_lone_calls()), "--select", f"trace={TRACE}")
    assert result.code == 1
    assert "imported with it" not in result.stderr
    assert "each model call is its own trace" in result.stderr


def test_wrong_types_where_objects_are_expected_are_refused_not_raised(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[1] = chat(
        "b2b2b2b2b2b2b2b2", 1, [{"role": ["user"], "parts": 5}], [{"role": "assistant", "parts": [5]}]
    )
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert "Traceback" not in result.stderr
    assert text("x")  # the builders stay importable for the fuzz tests
