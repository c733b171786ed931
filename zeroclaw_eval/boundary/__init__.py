"""What crosses the two boundaries the harness owns, and the record of it: the model
boundary's messages, tool specs and replies (`provider`), what an agent sends read
defensively (`sent`), and the `RunRecord` that graders score (`record`). Tools, the
agent loop, the wires and the graders all stand on these types."""
