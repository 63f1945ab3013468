"""``python -m brson`` runs the command line."""

from brson.cli.app import run

if __name__ == "__main__":
    run()
