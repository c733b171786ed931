"""What the tests share: fixtures and reports built to order (`builders`, `reports`,
`scripts`), agents under test (`agents`, `agent_command`), the CLI run in-process and as
a process (`invoke`), and a reader of GitHub Actions logs (`ci_log`)."""
