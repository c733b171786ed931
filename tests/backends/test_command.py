"""`zeroclaw_eval.backends.command`: the command line of an agent command, and the
answer lines it writes (the process itself is driven in tests/cli/commands/test_run_agent_cmd.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeroclaw_eval.backends.command import AgentCommand, _answer_of
from zeroclaw_eval.errors import UsageError


def test_arguments_naming_project_files_are_made_absolute(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("", encoding="utf-8")
    (tmp_path / "dist").mkdir()
    command = AgentCommand.parse("python agent.py --model gpt dist -v missing.py", project_dir=tmp_path)
    assert command.resolved() == [
        "python",
        str(tmp_path / "agent.py"),
        "--model",
        "gpt",
        str(tmp_path / "dist"),
        "-v",
        "missing.py",  # not a file of the project: left as written
    ]


def test_the_command_line_is_split_like_a_shell_without_a_shell() -> None:
    assert AgentCommand.parse("node 'my agent.mjs' --flag=\"a b\"").argv == (
        "node",
        "my agent.mjs",
        "--flag=a b",
    )
    assert AgentCommand.parse("sh -c 'echo $HOME | cat'").argv == ("sh", "-c", "echo $HOME | cat")


@pytest.mark.parametrize(
    ("text", "io", "words"),
    [("", "jsonl", "is empty"), ("a 'b", "jsonl", "No closing quotation"), ("a", "lines", "expected one of")],
)
def test_a_command_that_cannot_be_is_a_usage_error(text: str, io: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        AgentCommand.parse(text, io)


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ('{"answer": "done"}', ("answer", "done")),
        ('{"answer": "done", "turn": 0}', ("answer", "done")),
        ('{"error": "no key"}', ("error", "no key")),
        ("done", None),  # a log line
        ('{"level": "info"}', None),  # a JSON log line is not an answer
        ('{"level": "warn", "error": "timeout, retrying"}', None),  # nor a structured log's error
        ('{"turn": 0}', None),
        ("{broken", None),
        ('{"answer":' * 5_000 + '"x"' + "}" * 5_000, None),  # too deep to parse: output
        (
            '{"answer": 3}',
            ("protocol", "the agent's answer line has an answer of type int; it must be a string"),
        ),
        (
            '{"answer": null}',
            ("protocol", "the agent's answer line has an answer of type NoneType; it must be a string"),
        ),
    ],
)
def test_only_answer_lines_are_answers(line: str, answer: tuple[str, str] | None) -> None:
    assert _answer_of(line) == answer
