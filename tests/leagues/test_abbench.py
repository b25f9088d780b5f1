"""The A/B check of the benches (``leagues.abbench``): its verdicts and its reading of a bench
from before ``--json``. The whole run (a worktree, two databases, the benches) is ``make bench``'s."""
from __future__ import annotations

from leagues import abbench


def _rounds(figures: dict[str, list[float]]) -> dict[str, list[float]]:
    """Every figure's values: 1.0 in each run but those given (name -> a value per run)."""
    n = len(next(iter(figures.values())))
    return {f.name: figures.get(f.name, [1.0] * n) for f in abbench.FIGURES}


def test_a_time_regresses_beyond_ten_percent_and_the_medians_count():
    a = _rounds({"flick_ms_median": [1.0, 1.0, 1.0], "latency.p95_ms": [10.0, 10.0, 10.0]})
    b = _rounds({"flick_ms_median": [1.09, 5.0, 1.0], "latency.p95_ms": [11.5, 11.2, 9.0]})
    rows = {r["figure"]: r for r in abbench.verdicts(a, b)}
    assert rows["flick_ms_median"]["b"] == 1.09 and rows["flick_ms_median"]["ok"]  # one bad run is absorbed
    assert rows["latency.p95_ms"]["ratio"] == 1.12 and not rows["latency.p95_ms"]["ok"]
    assert rows["whole_match.total_s"]["ok"]


def test_the_realtime_factor_regresses_when_it_falls():
    a = _rounds({"realtime_factor": [1000.0]})
    rows = {r["figure"]: r for r in abbench.verdicts(a, _rounds({"realtime_factor": [1500.0]}))}
    assert rows["realtime_factor"]["ok"]
    rows = {r["figure"]: r for r in abbench.verdicts(a, _rounds({"realtime_factor": [880.0]}))}
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
