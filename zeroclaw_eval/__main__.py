"""`python -m zeroclaw_eval` runs the same CLI as the `zeroclaw` console script."""

from zeroclaw_eval.cli import entry

if __name__ == "__main__":
    entry()
