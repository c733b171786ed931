"""Stage 2: an admitted case runs through an agent between two recorded boundaries, into a `RunRecord`."""
