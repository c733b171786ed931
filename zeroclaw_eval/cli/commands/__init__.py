"""One module per `zeroclaw eval` command: its options, its help, and the steps it runs."""
