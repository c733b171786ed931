"""An agent that runs as its own process (`--agent-cmd`), in any language or framework.

The harness serves the case on a loopback port (`http_front`) and starts the command
once per case, in the case workspace, with:

    OPENAI_BASE_URL, OPENAI_API_BASE   the loopback server (`http://127.0.0.1:PORT/v1`)
    OPENAI_API_KEY                     a dummy key (`zeroclaw-replay`)
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

The process gets `case_timeout_secs` per turn; when the case ends, or a turn times out,
it and every process it started are killed. Its stderr's last lines go into the report
when the case errors. Arguments that name a file or folder of the project are made
absolute, since the command runs in the workspace.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.errors import RunError, UsageError
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.agent import AgentContext, AgentFactory
from zeroclaw_eval.run.http_front import HttpFront
from zeroclaw_eval.run.toolbox import ToolBox

IO_MODES = ("jsonl", "oneshot")
#: Lines of stderr (and of stray stdout) kept for the report.
TAIL_LINES = 40
#: How long a command may take to exit by itself once its stdin is closed.
EXIT_GRACE_SECS = 2.0
_LINE_LIMIT = 16 * 1024 * 1024  # one answer line may be long; a runaway one is cut off


@dataclass(frozen=True)
class AgentCommand:
    """The command line of an agent that runs as its own process, and how it talks."""

    argv: tuple[str, ...]
    io: str = "jsonl"
    #: Where relative paths in the command point (the project folder).
    project_dir: Path = Path()

    @classmethod
    def parse(cls, text: str, io: str = "jsonl", project_dir: Path | None = None) -> AgentCommand:
        """`text` split like a shell command line (no shell runs: use `sh -c '…'` for
        pipes or variables)."""
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"--agent-cmd {text!r}: {exc}") from None
        if not argv:
            raise UsageError("--agent-cmd is empty; give the command that starts the agent")
        if io not in IO_MODES:
            raise UsageError(f"--agent-io {io!r}: expected one of {', '.join(IO_MODES)}")
        return cls(argv, io, (project_dir or Path.cwd()).resolve())

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


def command_agent_factory(command: AgentCommand, case: Case, workspace: Path) -> AgentFactory:
    """The agent factory of `case` run by `command` in `workspace`."""

    def factory(context: AgentContext) -> CommandAgent:
        return CommandAgent(command, case, workspace, context)

    return factory


class CommandAgent:
    """One case's agent process, spoken to over stdin and stdout."""

    def __init__(self, command: AgentCommand, case: Case, workspace: Path, context: AgentContext) -> None:
        if not isinstance(context.tools, ToolBox) or context.loop is None:
            raise TypeError("an agent command runs under the harness only")  # pragma: no cover
        self._command = command
        self._case = case
        self._workspace = workspace
        self._front = HttpFront(context.provider, context.tools, context.loop, case.trace.model_name)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: deque[str] = deque(maxlen=TAIL_LINES)
        self._stray: deque[str] = deque(maxlen=TAIL_LINES)
        self._drain: asyncio.Task[None] | None = None
        self._turn = 0
        #: A turn is under way: if the case ends now, the turn was cut off (a timeout).
        self._waiting = False

    async def run_turn(self, user_input: str) -> str:
        """Send one turn's user input; the agent's answer."""
        turn, self._turn = self._turn, self._turn + 1
        self._waiting = True
        answer = await (
            self._oneshot(turn, user_input)
            if self._command.io == "oneshot"
            else self._jsonl(turn, user_input)
        )
        self._waiting = False
        return answer

    async def _jsonl(self, turn: int, user_input: str) -> str:
        process = self._process or await self._start(())
        assert process.stdin is not None
        assert process.stdout is not None
        line = json.dumps({"turn": turn, "user_input": user_input}, ensure_ascii=False) + "\n"
        try:
            process.stdin.write(line.encode("utf-8"))
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise await self._failure(turn, "stopped reading its stdin") from None
        while True:
            raw = await process.stdout.readline()
            if not raw:
                raise await self._failure(turn, "exited before answering")
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            answer = _answer_of(text)
            if answer is None:
                self._stray.append(text)
                continue
            if "error" in answer:
                raise RunError(
                    f"the agent reported an error: {answer['error']}", traceback=self.diagnostics()
                )
            return answer["answer"]

    async def _oneshot(self, turn: int, user_input: str) -> str:
        if turn > 0:
            turns = len(self._case.trace.turns)
            raise RunError(
                f"a oneshot agent answers single-turn cases; this case has {turns} turns"
                " (use --agent-io jsonl)"
            )
        process = await self._start((user_input,))
        assert process.stdout is not None
        output = await process.stdout.read()
        code = await process.wait()
        if code != 0:
            raise await self._failure(turn, f"exited with code {code}")
        return output.decode("utf-8", errors="replace").rstrip("\r\n")

    async def _start(self, extra: tuple[str, ...]) -> asyncio.subprocess.Process:
        argv = [*self._command.resolved(), *extra]
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if self._command.io == "jsonl" else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self._workspace,
                env=self._environment(),
                start_new_session=True,  # its own process group: killed whole at the end
                limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise RunError(f"cannot start the agent command {argv[0]!r}: {exc.strerror or exc}") from None
        self._process = process
        self._drain = asyncio.ensure_future(self._read_stderr(process))
        return process

    def _environment(self) -> dict[str, str]:
        project = str(self._command.project_dir)
        path = os.environ.get("PYTHONPATH")
        loopback = "127.0.0.1,localhost"
        no_proxy = os.environ.get("NO_PROXY")
        return {
            **os.environ,
            "OPENAI_BASE_URL": self._front.url,
            "OPENAI_API_BASE": self._front.url,
            "OPENAI_API_KEY": "zeroclaw-replay",
            "ZEROCLAW_EVAL_CASE": self._case.name,
            "ZEROCLAW_EVAL_MODEL": self._case.trace.model_name,
            "ZEROCLAW_EVAL_PROJECT": project,
            "PYTHONPATH": project if not path else f"{project}{os.pathsep}{path}",
            # A proxy configured for the machine must not carry loopback requests away.
            "NO_PROXY": loopback if not no_proxy else f"{no_proxy},{loopback}",
            "no_proxy": loopback if not no_proxy else f"{no_proxy},{loopback}",
        }

    async def _read_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while line := await process.stderr.readline():
            self._stderr.append(line.decode("utf-8", errors="replace").rstrip("\r\n"))

    async def _failure(self, turn: int, what: str) -> RunError:
        process = self._process
        if process is not None:
            try:
                await asyncio.wait_for(process.wait(), 1.0)
            except asyncio.TimeoutError:
                pass
            if process.returncode is not None and "code" not in what:
                what += f" (exit code {process.returncode})"
        if self._drain is not None:  # the last stderr lines, written as it exited
            await asyncio.wait([self._drain], timeout=1.0)
        return RunError(f"the agent command {what}", traceback=self.diagnostics())

    def diagnostics(self) -> str | None:
        """The last lines the process wrote to stderr (and stray stdout), for the report."""
        parts = []
        if self._stderr:
            parts.append("stderr (last lines):\n" + "\n".join(self._stderr))
        if self._stray:
            parts.append("stdout lines that were not answers:\n" + "\n".join(self._stray))
        return "\n".join(parts) or None

    async def aclose(self) -> None:
        """End the process (given `EXIT_GRACE_SECS` once its stdin is closed, then killed
        with every process it started; at once if a turn was cut off) and the server in
        front of the case."""
        process = self._process
        try:
            if process is not None and process.returncode is None and not self._waiting:
                if process.stdin is not None:
                    process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), EXIT_GRACE_SECS)
                except asyncio.TimeoutError:
                    pass
            if process is not None:
                _kill_group(process.pid)
                await process.wait()
            if self._drain is not None:
                self._drain.cancel()
        finally:
            self._front.close()


def _answer_of(line: str) -> dict[str, str] | None:
    """The answer (or error) a stdout line holds, if it is one."""
    if not line.startswith("{"):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("answer"), str):
        return {"answer": data["answer"]}
    if isinstance(data, dict) and "error" in data and "answer" not in data:
        return {"error": str(data["error"])}
    return None


def _kill_group(pid: int) -> None:
    """Kill the process group `pid` leads (the agent and whatever it started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone
