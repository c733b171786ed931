"""Which fixtures a run takes: a suite's files found (a folder's direct `*.json`
children), chosen by `-k`, split into shards for a CI matrix, and their paths as every
output shows them."""
