"""Stage 4: grades become one `SuiteReport`, the data every reporter renders."""
