"""The tool boundary: what a tool is (`tool`), the built-in tools, the project's own,
a fixture's doubles, the recording `ToolBox` every dispatch goes through, the live
sandbox's approvals, and the per-case workspace the tools cannot leave."""
