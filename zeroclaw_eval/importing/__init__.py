"""Stage 0, before a suite exists: production traces turned into regression cases
(`zeroclaw eval import`).

A trace file is read (`sources`: OTLP JSON with the GenAI conventions, `genai`, or
OpenInference, `openinference`; a Langfuse or LangSmith export) into the neutral
`trace.ImportedTrace`; it is scrubbed (`scrub`), made turns and a recorded run
(`conversation`), and a fixture with the checks that run proves (`fixture`), admitted
and proven before it is written (`importer`).
"""
