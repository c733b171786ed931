"""Configuration: the `[eval]` settings and the live providers, read strictly from TOML."""
