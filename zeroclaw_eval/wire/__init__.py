"""The wire formats an agent speaks to a model, as the harness serves them: Chat
Completions (`chat`) and Responses (`responses`), plain and streamed; one endpoint that
reads a request of either and writes a reply (`endpoint`); the loopback HTTP server
pieces (`http`) and their bounds (`limits`)."""
