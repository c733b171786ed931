"""Peak memory of the loopback HTTP fronts under hostile bodies: `zeroclaw eval serve`, and
the front an agent command talks to (inside the harness process).

    python benchmarks/http_memory.py [--concurrent 4] [--budget-mib 512]

Each front is sent `--concurrent` request bodies at once, each just under the 16 MiB
body limit and built to parse to as much as it can (an array of empty objects, of empty
arrays, of short strings), plus as many readers of serve's request log, and its peak
resident memory (`VmHWM`) is read from /proc. Prints one line per front and shape and
exits 1 when a peak is over the budget. Linux only (/proc); sends nothing off loopback.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

BODY_BYTES = 16 * 1024 * 1024 - 4096
FIXTURE = {
    "model_name": "memory",
    "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "ok"}}]}],
    "expects": {"response_contains": ["ok"]},
}
#: Each shape repeated to fill a body: refused as too many values, all but the last two.
#: `objects, under the value limit` is the most a request may parse to (one object and
#: one comma each: just under a million values); `one long text` a 16 MiB tool result.
SHAPES = {
    "objects": (b"{},", None),
    "arrays": (b"[],", None),
    "strings": (b'"a",', None),
    "numbers": (b"1,", None),
    "objects, under the value limit": (b"{},", 499_000),
    "one long text": (None, None),
}


def body(shape: bytes | None, count: int | None) -> bytes:
    head, tail = b'{"model": "memory", "messages": [', b'{"role": "user", "content": "hi"}]}'
    if shape is None:
        text = b"x" * (BODY_BYTES - len(head) - len(tail) - 64)
        return head + b'{"role": "tool", "tool_call_id": "c", "content": "' + text + b'"},' + tail
    times = count if count is not None else (BODY_BYTES - len(head) - len(tail)) // len(shape)
    return head + shape * times + tail


def peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def post_all(url: str, payloads: list[bytes]) -> list[int]:
    statuses: list[int] = []

    def send(data: bytes) -> None:
        request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as reply:
                statuses.append(reply.status)
        except urllib.error.HTTPError as refused:
            statuses.append(refused.code)

    threads = [threading.Thread(target=send, args=(data,)) for data in payloads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def measure_serve(folder: Path, concurrent: int) -> list[tuple[str, float, list[int]]]:
    rows = []
    for name, (shape, count) in SHAPES.items():
        zeroclaw = Path(sys.executable).parent / "zeroclaw"
        server = subprocess.Popen(
            [str(zeroclaw), "eval", "serve", "--fixture", str(folder / "memory.json"), "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().split(" on ", 1)[1].split()[0]
            payload = body(shape, count)
            statuses = post_all(url + "/chat/completions", [payload] * concurrent)
            readers = [
                threading.Thread(target=urllib.request.urlopen, args=(url[:-3] + "/_zeroclaw/requests",))
            ]
            for reader in readers * 1:
                reader.start()
                reader.join()
            rows.append((f"serve, {name}", peak_mib(server.pid), statuses))
        finally:
            server.terminate()
            server.wait(10)
    return rows


AGENT = textwrap.dedent(
    """
    import json, os, sys, threading, urllib.error, urllib.request
    data = open({payload!r}, "rb").read()
    def send():
        request = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=data,
                                         headers={{"Content-Type": "application/json"}})
        try:
            urllib.request.urlopen(request, timeout=120).read()
        except urllib.error.HTTPError:
            pass
    for line in sys.stdin:
        threads = [threading.Thread(target=send) for _ in range({concurrent})]
        [t.start() for t in threads]; [t.join() for t in threads]
        status = open(f"/proc/{{os.getppid()}}/status").read()
        peak = [l for l in status.splitlines() if l.startswith("VmHWM:")][0].split()[1]
        print(json.dumps({{"answer": peak}}), flush=True)
    """
)


def measure_front(folder: Path, concurrent: int) -> list[tuple[str, float, list[int]]]:
    rows = []
    zeroclaw = Path(sys.executable).parent / "zeroclaw"
    for number, (name, (shape, count)) in enumerate(SHAPES.items()):
        payload = folder.parent / f"body_{number}.bin"  # outside the suite folder
        payload.write_bytes(body(shape, count))
        agent = folder.parent / f"agent_{number}.py"
        agent.write_text(AGENT.format(payload=str(payload), concurrent=concurrent), encoding="utf-8")
        done = subprocess.run(
            [
                str(zeroclaw),
                "eval",
                "run",
                "--suite",
                str(folder),
                "--format",
                "json",
                "--agent-cmd",
                f"{sys.executable} {agent}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        case = json.loads(done.stdout)["cases"][0]
        record = case["record"] or {}
        if not record.get("turns") or record["turns"][0]["response"] is None:
            raise RuntimeError(f"the agent command did not report its peak: {case['error']}")
        rows.append((f"agent-command front, {name}", int(record["turns"][0]["response"]) / 1024, []))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=4)
    parser.add_argument("--budget-mib", type=float, default=512)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "suite"
        folder.mkdir()
        (folder / "memory.json").write_text(json.dumps(FIXTURE), encoding="utf-8")
        started = time.perf_counter()
        rows = measure_serve(folder, options.concurrent) + measure_front(folder, options.concurrent)
    over = False
    for label, peak, statuses in rows:
        flag = "OVER" if peak > options.budget_mib else "ok"
        over |= peak > options.budget_mib
        said = f"  statuses {sorted(set(statuses))}" if statuses else ""
        print(f"{label:52s} peak {peak:7.1f} MiB  ({flag}, budget {options.budget_mib:g}){said}")
    elapsed = time.perf_counter() - started
    print(f"{options.concurrent} concurrent bodies of up to {BODY_BYTES:,} bytes; {elapsed:.1f}s")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
