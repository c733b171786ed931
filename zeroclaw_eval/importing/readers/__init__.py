"""The trace formats `zeroclaw eval import` reads, one module each: OTLP JSON (`otlp`)
holding spans of the OpenTelemetry GenAI conventions (`genai`, with the shapes OpenLLMetry
and Logfire wrote before them: `openllmetry`, `logfire`), OpenInference's, the Langfuse
SDK's or MLflow's; Langfuse's and LangSmith's own exports. Each reads its format into an
`ImportedTrace` (`importing.trace`)."""
