"""JSON as the harness reads and writes it everywhere: strict parsing and the one spelling
of a value as text (`text`), the positions of values in a text (`scan`), and JSON
pointers (`pointer`)."""
