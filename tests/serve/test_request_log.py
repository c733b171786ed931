"""`zeroclaw_eval.serve.request_log`: the log is bounded in bytes as well as in entries,
and stays serialisable whatever a client sent."""

from __future__ import annotations

import json

from zeroclaw_eval.serve.request_log import RequestLog, joined


def _entry(number: int, prompt: str) -> dict[str, object]:
    return {"run": 1, "number": number, "model": "m", "system_prompt": prompt, "status": 200}


def test_the_log_keeps_the_newest_entries_that_fit_in_its_bytes() -> None:
    log = RequestLog(max_entries=1000, max_bytes=25_000)
    for number in range(1, 4):
        log.append(log.prepare(_entry(number, "x" * 10_000)))
    assert [log[i]["number"] for i in range(len(log))] == [2, 3]
    assert log.size <= 25_000


def test_an_entry_larger_than_the_whole_log_keeps_its_small_fields_only() -> None:
    log = RequestLog(max_bytes=1_000)
    log.append(log.prepare(_entry(7, "x" * 5_000)))
    [kept] = [log[0]]
    assert kept["number"] == 7
    assert kept["status"] == 200
    assert "system_prompt" not in kept
    assert "over the log's limit of 1000" in kept["omitted"]
    assert log.size <= 1_000


def test_a_lone_surrogate_is_kept_as_its_json_escape() -> None:
    log = RequestLog()
    log.append(log.prepare(_entry(1, "\ud800 and \U0001f600")))
    text = joined(log.snapshot())
    text.decode("utf-8")  # valid UTF-8 ...
    assert json.loads(text)[0]["system_prompt"] == "\ud800 and \U0001f600"  # ... of the same string
