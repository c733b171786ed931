"""`zeroclaw eval serve`: fixtures' scripted steps behind an OpenAI-compatible HTTP endpoint."""
