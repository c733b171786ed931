"""An agent that runs as its own process (`--agent-cmd`), in any language or framework.

The harness serves the case on a loopback port (`front`) and starts the command
once per case, in the case workspace, with:

    OPENAI_BASE_URL, OPENAI_API_BASE   the loopback server (`http://127.0.0.1:PORT/v1`)
    OPENAI_API_KEY                     a dummy key (`zeroclaw-replay`)
    ANTHROPIC_BASE_URL                 the same server without `/v1` (the Anthropic SDKs
                                       add it; `/messages` is served with and without it)
    ANTHROPIC_API_KEY                  the same dummy key
    GOOGLE_GEMINI_BASE_URL             the same server without `/v1` (google-genai adds
                                       `/v1beta` or `/v1`; both are served)
    GEMINI_API_KEY, GOOGLE_API_KEY     the same dummy key
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME   the same server without `/v1` (Bedrock's Converse)
    AWS_ACCESS_KEY_ID, ..._SECRET_...  dummy credentials (and a region, if none is set)
    ZEROCLAW_EVAL_CASE                 the fixture's file name
    ZEROCLAW_EVAL_MODEL                the fixture's model_name
    ZEROCLAW_EVAL_PROJECT              the project folder (also first on PYTHONPATH)

Two ways to talk (`io`):

- `jsonl` (the default): each turn's user input is written to stdin as one JSON line,
  `{"turn": 0, "user_input": "..."}`; the agent answers each with one JSON line on
  stdout, `{"answer": "..."}` (or `{"error": "..."}` to fail the turn). Other stdout
  lines are ignored (kept for the report). stdin is closed after the last turn.
- `oneshot`: for single-turn cases, the user input is the command's last argument and
  everything the command prints on stdout is the answer.

An answer line holds only the keys `answer`, `error` and `turn`; any other JSON line
(a structured log line) is output like any other, except one with a string `answer` and
keys besides, which is refused at once as the answer it most likely is (waiting for
another would cost the turn its whole timeout). The process gets `case_timeout_secs`
per turn; when the case ends, or a turn times out, it and every process it started are
killed (`process`). Its stderr's last lines go into the report when the case
errors. Arguments that name a file or folder of the project are made absolute, since the
command runs in the workspace.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.agent.loop import AgentContext, AgentFactory
from zeroclaw_eval.backends.process import LINE_LIMIT, TAIL_LINES, AgentProcess, tail_line
from zeroclaw_eval.boundary.text_echo import ToolEcho
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import ConfigError, RunError, UsageError
from zeroclaw_eval.tools.toolbox import ToolBox

IO_MODES = ("jsonl", "oneshot")
#: How long a command may take to exit by itself once its stdin is closed.
EXIT_GRACE_SECS = 2.0
#: Shells whose `-c` script `AgentCommand.check_shell_script` reads.
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})

#: The most a oneshot agent may print (bytes): its whole answer.
ONESHOT_LIMIT = LINE_LIMIT
_ANSWER_KEYS = frozenset({"answer", "error", "turn"})


@dataclass(frozen=True)
class AgentCommand:
    """The command line of an agent that runs as its own process, and how it talks."""

    argv: tuple[str, ...]
    io: str = "jsonl"
    #: Where relative paths in the command point (the project folder).
    project_dir: Path = Path()
    #: How it writes its tool calls and results to the model (`[eval].tool_echo`).
    echo: ToolEcho = "messages"
    #: A process per case: cases may run at once (`--jobs`).
    serial: ClassVar[bool] = False

    @classmethod
    def parse(
        cls,
        text: str,
        io: str = "jsonl",
        project_dir: Path | None = None,
        *,
        option: str = "--agent-cmd",
        echo: ToolEcho = "messages",
    ) -> AgentCommand:
        """`text` split like a shell command line (no shell runs: use `sh -c '…'` for
        pipes or variables). A program that cannot be found is a `ConfigError`: it would
        fail every case alike. `option` is how messages name the command line."""
        if not hasattr(os, "killpg"):
            raise UsageError(f"{option} needs POSIX process groups (Linux or macOS) to end an agent whole")
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"{option} {text!r}: {exc}") from None
        if not argv:
            raise UsageError(f"{option} is empty; give the command that starts the agent")
        if io not in IO_MODES:
            raise UsageError(f"--agent-io {io!r}: expected one of {', '.join(IO_MODES)}")
        command = cls(argv, io, (project_dir or Path.cwd()).resolve(), echo)
        command.check_shell_script(option)
        program = command.resolved()[0]
        if not (os.path.isabs(program) and os.access(program, os.X_OK)) and shutil.which(program) is None:
            raise ConfigError(
                f"{option}: cannot find the program {argv[0]!r} (not on PATH, nor an executable"
                f" file of {command.project_dir})"
            )
        return command

    def check_shell_script(self, option: str) -> None:
        """Refuse a shell script (`sh -c '…'`) that names a file of the project by a
        relative path: its words are the shell's, not arguments made absolute, and the
        command runs in each case's workspace, where the file is not."""
        argv = self.argv
        if Path(argv[0]).name not in _SHELLS or "-c" not in argv[1:-1]:
            return
        script = argv[argv.index("-c", 1) + 1]
        try:
            words = list(shlex.shlex(script, posix=True, punctuation_chars=True))
        except ValueError:
            return  # the shell will say what is wrong with it
        for word in words:
            if word.startswith("-") or "$" in word or os.path.isabs(word):
                continue
            if (self.project_dir / word).exists():
                raise ConfigError(
                    f"{option}: the shell script {script!r} names {word!r}, a file of the project,"
                    " by a relative path; the command runs in each case's workspace, where it is not."
                    f' Write "$ZEROCLAW_EVAL_PROJECT/{word}" (the project folder, in the agent\'s'
                    " environment), or run the program without a shell"
                )

    def resolved(self) -> list[str]:
        """The arguments, those naming a file or folder of the project made absolute."""
        resolved = []
        for argument in self.argv:
            candidate = self.project_dir / argument
            if not argument.startswith("-") and not os.path.isabs(argument) and candidate.exists():
                resolved.append(str(candidate))
            else:
                resolved.append(argument)
        return resolved

    def factory(self, case: Case, workspace: Path) -> AgentFactory:
        """The factory of the agent that runs `case`: this command, started in `workspace`."""

        def make(context: AgentContext) -> CommandAgent:
            return CommandAgent(self, case, workspace, context)

        return make

    def environment(
        self, base_url: str, case: Case | None, mcp_url: str | None = None, traceparent: str | None = None
    ) -> dict[str, str]:
        """The process's environment: this one's, and what points the agent at the case
        (an agent service, started for every case, gets no case's names) and at the MCP
        server of the case's tools (with `[eval].mcp`)."""
        project = str(self.project_dir)
        path = os.environ.get("PYTHONPATH")
        loopback = "127.0.0.1,localhost"
        no_proxy = os.environ.get("NO_PROXY") or os.environ.get("no_proxy")
        bypass = loopback if not no_proxy else f"{no_proxy},{loopback}"
        # A profile or a session token of the machine's would sign with its own credentials.
        inherited = {name: value for name, value in os.environ.items() if name not in _AWS_OWN}
        return {
            **inherited,
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_BASE": base_url,
            "OPENAI_API_KEY": "zeroclaw-replay",
            "ANTHROPIC_BASE_URL": base_url.removesuffix("/v1"),
            "ANTHROPIC_API_KEY": "zeroclaw-replay",
            # google-genai (and Google ADK on it) read the base URL here and add the API
            # version themselves; a key must be set, any key.
            "GOOGLE_GEMINI_BASE_URL": base_url.removesuffix("/v1"),
            "GEMINI_API_KEY": "zeroclaw-replay",
            "GOOGLE_API_KEY": "zeroclaw-replay",
            # boto3 (and Strands on it) take Bedrock's endpoint here, and sign with any
            # credentials: these stand in for the machine's own, which never sign a
            # request of the agent under the gate.
            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": base_url.removesuffix("/v1"),
            "AWS_ACCESS_KEY_ID": "zeroclaw-replay",
            "AWS_SECRET_ACCESS_KEY": "zeroclaw-replay",
            "AWS_REGION": os.environ.get("AWS_REGION") or "us-east-1",
            "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            **(
                {"ZEROCLAW_EVAL_CASE": case.name, "ZEROCLAW_EVAL_MODEL": case.trace.model_name}
                if case
                else {}
            ),
            **({"ZEROCLAW_EVAL_MCP_URL": mcp_url} if mcp_url else {}),
            # The case's span in the run's trace: OpenTelemetry's SDKs read it from here
            # (the environment-variable carrier) as the parent of the agent's spans.
            **({"TRACEPARENT": traceparent} if traceparent else {}),
            "ZEROCLAW_EVAL_PROJECT": project,
            "PYTHONPATH": project if not path else f"{project}{os.pathsep}{path}",
            # A proxy configured for the machine must not carry loopback requests away.
            "NO_PROXY": bypass,
            "no_proxy": bypass,
        }


#: The machine's AWS settings an agent under the gate must not inherit: with one, boto3
#: would sign with the machine's credentials rather than the dummy ones it is given.
_AWS_OWN = frozenset(
    {"AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE",
     "AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"}
)  # fmt: skip


class CommandAgent:
    """One case's agent process, spoken to over stdin and stdout."""

    def __init__(self, command: AgentCommand, case: Case, workspace: Path, context: AgentContext) -> None:
        if not isinstance(context.tools, ToolBox) or context.loop is None:
            raise TypeError("an agent command runs under the harness only")  # pragma: no cover
        self._command = command
        self._case = case
        self._workspace = workspace
        # Here, not at the top: the runner imports this module for `AgentCommand`, and a
        # replay without an agent command must not load the HTTP server and wire formats.
        from zeroclaw_eval.backends.front import HttpFront

        self._front = HttpFront(
            context.provider, context.tools, context.loop, case.trace.model_name, command.echo
        )
        self._mcp_url = context.mcp_url
        self._traceparent = context.traceparent
        self._process: AgentProcess | None = None
        self._answers: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._stray: deque[str] = deque(maxlen=TAIL_LINES)
        self._output: list[str] = []  # oneshot: everything printed
        self._printed = 0
        self._turn = 0
        #: A turn is under way: if the case ends now, the turn was cut off (a timeout).
        self._waiting = False
        #: Set by `aclose` when the process failed once every turn was answered: the case's
        #: run error (`agent.drive`).
        self.closing_error: RunError | None = None

    async def run_turn(self, user_input: str) -> str:
        """Send one turn's user input; the agent's answer."""
        turn, self._turn = self._turn, self._turn + 1
        self._waiting = True
        if self._command.io == "oneshot":
            answer = await self._oneshot(turn, user_input)
        else:
            answer = await self._jsonl(turn, user_input)
        self._waiting = False
        return answer

    async def _jsonl(self, turn: int, user_input: str) -> str:
        process = self._process or await self._start((), stdin=True)
        line = json.dumps({"turn": turn, "user_input": user_input}, ensure_ascii=False) + "\n"
        try:
            await process.send(line)
        except (BrokenPipeError, ConnectionResetError):
            code = await process.exited(1.0)
            if code is None:
                raise self._failure(
                    f"closed its stdin before turn {turn + 1} (it is still running)"
                ) from None
            raise self._failure(f"exited with code {code} before turn {turn + 1}") from None
        closed = asyncio.ensure_future(process.stdout_closed.wait())
        answered = asyncio.ensure_future(self._answers.get())
        try:
            await asyncio.wait([closed, answered], return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
            if not answered.done():
                answered.cancel()
        if not answered.done() or answered.cancelled():
            code = await process.exited(1.0)
            if code is None:
                raise self._failure("closed its stdout before answering (it is still running)")
            raise self._failure(f"exited with code {code} before answering")
        kind, text = answered.result()
        if kind == "answer":
            return text
        if kind == "protocol":
            raise RunError(text, traceback=self.diagnostics())
        raise RunError(f"the agent reported an error: {text}{self._refused()}", traceback=self.diagnostics())

    async def _oneshot(self, turn: int, user_input: str) -> str:
        if turn > 0:
            turns = len(self._case.trace.turns)
            raise RunError(
                f"a oneshot agent answers single-turn cases; this case has {turns} turns"
                " (use --agent-io jsonl)"
            )
        process = await self._start((user_input,), stdin=False)
        await process.stdout_closed.wait()
        code = await process.exited(1.0)
        if self._printed > ONESHOT_LIMIT:
            raise RunError(f"the agent printed over {ONESHOT_LIMIT} bytes; a oneshot answer must be shorter")
        if code is None:
            raise self._failure("closed its stdout but did not exit")
        if code != 0:
            raise self._failure(f"exited with code {code}")
        return "\n".join(self._output).rstrip("\r\n")

    async def _start(self, extra: tuple[str, ...], *, stdin: bool) -> AgentProcess:
        argv = [*self._command.resolved(), *extra]
        sink = self._oneshot_line if self._command.io == "oneshot" else self._jsonl_line
        try:
            self._process = await AgentProcess.start(
                argv,
                self._workspace,
                self._command.environment(self._front.url, self._case, self._mcp_url, self._traceparent),
                sink,
                stdin=stdin,
            )
        except OSError as exc:
            raise RunError(f"cannot start the agent command {argv[0]!r}: {exc.strerror or exc}") from None
        return self._process

    def _jsonl_line(self, line: str | int) -> None:
        if isinstance(line, int):
            message = (
                f"the agent wrote a stdout line of {line} bytes; an answer line must be under {LINE_LIMIT}"
            )
            self._answers.put_nowait(("protocol", message))
            return
        found = _answer_of(line)
        if found is None:
            self._stray.append(tail_line(line))
        else:
            self._answers.put_nowait(found)

    def _oneshot_line(self, line: str | int) -> None:
        self._printed += line if isinstance(line, int) else len(line) + 1
        if isinstance(line, str) and self._printed <= ONESHOT_LIMIT:
            self._output.append(line)

    def _failure(self, what: str) -> RunError:
        """The run error of a process that stopped talking (`what` it did)."""
        return RunError(f"the agent command {what}{self._refused()}", traceback=self.diagnostics())

    @property
    def refused(self) -> str | None:
        """What the endpoint refused the agent before the script saw it, if anything: the
        likely cause of what went wrong next."""
        return self._front.refused

    def _refused(self) -> str:
        return f" ({self.refused})" if self.refused else ""

    def diagnostics(self) -> str | None:
        """The last lines the process wrote to stderr (and stray stdout), for the report."""
        parts = []
        if self._process is not None and self._process.stderr:
            parts.append("stderr (last lines):\n" + "\n".join(self._process.stderr))
        if self._stray:
            parts.append("stdout lines that were not answers:\n" + "\n".join(self._stray))
        return "\n".join(parts) or None

    async def aclose(self) -> None:
        """End the process (given `EXIT_GRACE_SECS` once its stdin is closed, none if a
        turn was cut off) and the server in front of the case."""
        try:
            if self._process is not None:
                code = await self._process.end(0.0 if self._waiting else EXIT_GRACE_SECS)
                if code and self._command.io != "oneshot" and self._turn > 0:
                    self.closing_error = self._failure(
                        f"exited with code {code} after its last answer (it was to exit by itself"
                        " once its stdin closed): what fails after an agent answers (saving the"
                        " conversation, a request of its own) is a broken agent, whatever it answered"
                    )
        finally:
            self._front.close()


def _answer_of(line: str) -> tuple[str, str] | None:
    """What an answer line holds: ("answer", text), ("error", text), or ("protocol", what
    is wrong with it); None for a line that is no answer line (output)."""
    if not line.startswith("{"):
        return None
    try:
        data = loads_untrusted(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not data:
        return None
    others = set(data) - _ANSWER_KEYS
    if others and isinstance(data.get("answer"), str):
        # Most likely an answer with a key of the agent's own: said now, not after the
        # turn's whole timeout spent waiting for an answer line. (A log line with an
        # `error` key and others stays output: structured loggers write those.)
        extra = ", ".join(sorted(map(repr, others)))
        return (
            "protocol",
            f"the agent printed an answer line with other keys ({extra}); an answer line holds only"
            ' "answer" (or "error") and "turn": print the rest on another line or on stderr',
        )
    if others or set(data) == {"turn"}:
        return None
    if "answer" in data:
        answer = data["answer"]
        if isinstance(answer, str):
            return ("answer", answer)
        return (
            "protocol",
            f"the agent's answer line has an answer of type {type(answer).__name__}; it must be a string",
        )
    return ("error", str(data["error"]))
