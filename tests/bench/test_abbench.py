"""The A/B check of the benches (``tests.bench.abbench``): its verdicts and its reading of a bench
from before ``--json``. The whole run (a worktree, two databases, the benches) is ``make bench``'s."""
from __future__ import annotations

from tests.bench import abbench


def _rounds(figures: dict[str, list[float]]) -> dict[str, list[float]]:
    """Every figure's values: 1.0 in each run but those given (name -> a value per run)."""
    n = len(next(iter(figures.values())))
    return {f.name: figures.get(f.name, [1.0] * n) for f in abbench.FIGURES}


def test_an_online_time_compares_round_by_round():
    # the machine's load drifts: round 3 is slow for both sides alike
    a = _rounds({"latency.p95_ms": [10.0, 10.0, 30.0], "whole_match.total_s": [6.0, 6.0, 9.0]})
    b = _rounds({"latency.p95_ms": [11.5, 11.2, 33.0], "whole_match.total_s": [6.5, 12.0, 9.0]})
    rows = {r["figure"]: r for r in abbench.verdicts(a, b)}
    assert rows["latency.p95_ms"]["ratio"] == 1.12 and not rows["latency.p95_ms"]["ok"]
    assert (rows["latency.p95_ms"]["a"], rows["latency.p95_ms"]["b"]) == (10.0, 11.5)  # the medians
    assert rows["whole_match.total_s"]["ratio"] == 1.083 and rows["whole_match.total_s"]["ok"]  # one bad pair absorbed


def test_a_physics_figure_counts_by_its_best_run():
    # runs slowed by another process on the core (0.45) count for nothing while one ran free
    a = _rounds({"flick_ms_median": [0.34, 0.35, 0.34, 0.46, 0.34]})
    b = _rounds({"flick_ms_median": [0.45, 0.46, 0.35, 0.45, 0.47]})
    row = next(r for r in abbench.verdicts(a, b) if r["figure"] == "flick_ms_median")
    assert (row["a"], row["b"], row["ok"]) == (0.34, 0.35, True)
    assert row["b_median"] == 0.45
    slower = _rounds({"flick_ms_median": [0.40, 0.41, 0.39, 0.45, 0.40]})
    assert not next(r for r in abbench.verdicts(a, slower) if r["figure"] == "flick_ms_median")["ok"]


def test_the_realtime_factor_regresses_when_its_best_falls():
    a = _rounds({"realtime_factor": [1000.0, 700.0]})
    rows = {r["figure"]: r for r in abbench.verdicts(a, _rounds({"realtime_factor": [1500.0, 600.0]}))}
    assert rows["realtime_factor"]["ok"]
    rows = {r["figure"]: r for r in abbench.verdicts(a, _rounds({"realtime_factor": [880.0, 870.0]}))}
    assert not rows["realtime_factor"]["ok"]


def test_a_bench_from_before_json_is_read_from_its_printed_dicts():
    stdout = (
        "ratings: 0 players, 0 placings\n"
        "latency (accepted action -> other player's read, without the referee): "
        "{'n': 200, 'p50_ms': 16.8, 'p95_ms': 23.3, 'max_ms': 36.5}\n"
        "whole bot match 2 x 25 min: {'actions': 601, 'play_s': 6.64, 'total_s': 7.24, 'result': 'None'}\n"
    )
    figures = abbench._printed_dicts(stdout)
    assert figures["latency"]["p95_ms"] == 23.3
    assert figures["whole_match"]["total_s"] == 7.24


def test_the_sides_databases_are_named_after_the_given_one():
    assert abbench._side_url("postgresql://postgres@127.0.0.1:5432/botonera_abbench", "a") == (
        "postgresql://postgres@127.0.0.1:5432/botonera_abbench_a")
    assert abbench._side_url("postgresql://u@db/bench?sslmode=disable", "b") == "postgresql://u@db/bench_b?sslmode=disable"
