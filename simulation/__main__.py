"""``python -m simulation scenario FILE.json [--frames]``: see ``simulation.scenario``."""
import sys

from .scenario import main

if len(sys.argv) < 2 or sys.argv[1] != "scenario":
    print("usage: python -m simulation scenario FILE.json [--frames]", file=sys.stderr)
    sys.exit(2)
sys.exit(main(sys.argv[2:]))
