"""The scale bench reads wrk's latency distribution under the percentiles wrk prints."""
from tests.bench.scalebench import wrk_figures

WRK_OUTPUT = """Running 5s test @ http://127.0.0.1:8000/competitions/liga/
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    21.50ms    9.10ms 120.00ms   80.00%
  Latency Distribution
     50%   19.80ms
     75%   25.10ms
     90%   33.40ms
     99%    1.20s
  3010 requests in 5.00s, 40.00MB read
  Non-2xx or 3xx responses: 7
Requests/sec:    602.00
Transfer/sec:      8.00MB
"""


def test_wrk_percentiles_are_named_as_printed():
    figures = wrk_figures(WRK_OUTPUT)
    assert figures["rps"] == 602.0
    assert (figures["p50_ms"], figures["p90_ms"], figures["p99_ms"]) == (19.8, 33.4, 1200.0)
    assert "p95_ms" not in figures  # wrk prints no 95 % line: nothing is called one
    assert figures["errors"] == 7
