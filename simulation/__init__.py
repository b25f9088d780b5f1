"""The table, its physics and the referees: pure Python, no Django (see pyproject's import-linter contract).

Units: millimetres, seconds, grams, mm/s, degrees (SIMULATION_CONTRACT.md §1).
"""
