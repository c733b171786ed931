"""How an agent is reached: in this process (`in_process`, the `openai` SDK's client on
the harness), as a command of its own (`command`, its `process`, the loopback `front` it
talks to), or a real model in live mode (`live`), whose runs `capture` records as
fixtures."""
