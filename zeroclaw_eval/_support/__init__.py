"""The ground floor every stage stands on, and no public API: files written whole or not
at all (`files`), secrets kept out of what is shown (`redaction`), frozen records as cheap
as plain ones (`frozen`), work handed to threads (`threads`), and JSON as the harness reads
and writes it (`json`: strict text, positions, pointers)."""
