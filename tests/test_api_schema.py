"""The API does what ``/api/schema/`` says (issue 15): schemathesis runs over every operation of
the schema against a live server on the demo federation, anonymously and as an organiser (who
also plays a live match, so the action API answers as to a player), and finds no 5xx and no
answer the schema does not describe.

The checks are named (``CHECKS``); the run is bounded by ``MAX_EXAMPLES`` cases per operation
and phase, a fixed seed (the same cases on every run; ``SCHEMATHESIS_SEED`` picks others) and a
time budget (``BUDGET_S`` per identity, a failure past it). The same run by hand, against
``make run``::

    .venv/bin/st run http://127.0.0.1:8000/api/schema/ -H "Authorization: Token $TOKEN" \\
        --checks not_a_server_error,status_code_conformance,content_type_conformance,\\
    response_headers_conformance,response_schema_conformance --max-examples 10 --workers 1 \\
        --phases examples,fuzzing,stateful
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from xml.etree import ElementTree

import pytest

pytestmark = pytest.mark.slow

CHECKS = [
    "not_a_server_error",  # no 5xx
    "status_code_conformance",  # every status answered is in the schema
    "content_type_conformance",  # ... with the media type it gives
    "response_headers_conformance",  # ... and the headers it requires
    "response_schema_conformance",  # ... and a body its schema validates
]
PHASES = "examples,fuzzing,stateful"
MAX_EXAMPLES = 6
BUDGET_S = 180
ST = Path(sys.executable).with_name("st")

# The coverage phase (every boundary of every parameter) takes a quarter of an hour here: run it
# by hand (``--phases coverage``); its repeated query parameters only test the HTTP server's limit.
CONFIG = """\
[phases.coverage]
generate-duplicate-query-parameters = false
unexpected-methods = []
"""


@pytest.fixture
def world(transactional_db, live_server):
    """The demo federation, the organiser's token, and a live match the organiser plays."""
    from django.contrib.auth import get_user_model

    from leagues.services.demo import DEMO_ORGANISER, demo_load
    from leagues.services.tokens import token_create
    from matches.services.online import practice_create

    demo_load(random_passwords=True)
    organiser = get_user_model().objects.get(username=DEMO_ORGANISER[0])
    practice_create(user=organiser, rule_set="one_touch", side="home")
    _row, token = token_create(user=organiser, label="schemathesis")
    return {"url": live_server.url, "token": token}


def schemathesis_run(url: str, tmp_path: Path, *, headers: tuple[str, ...] = ()) -> dict:
    """Runs the CLI over every operation; its exit code, output and figures."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    reports = tmp_path / "reports"
    command = [
        str(ST), "--no-color", "--config-file", str(config), "run", f"{url}/api/schema/",
        "--checks", ",".join(CHECKS), "--phases", PHASES, "--max-examples", str(MAX_EXAMPLES),
        "--workers", "1",  # the live server is one process; Hypothesis is not thread-safe here
        "--seed", os.environ.get("SCHEMATHESIS_SEED", "20261201"), "--generation-database", "none",
        "--request-timeout", "30", "--report", "junit", "--report-dir", str(reports),
    ]
    for header in headers:
        command += ["--header", header]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUDGET_S + 60, cwd=tmp_path)
    seconds = time.monotonic() - started
    junit = ElementTree.parse(next(reports.glob("*.xml")))
    tested = re.search(r"Tested: (\d+)", done.stdout)
    generated = re.search(r"(\d+) generated", done.stdout)
    return {
        "code": done.returncode, "output": done.stdout + done.stderr, "seconds": seconds,
        "operations": int(tested.group(1)) if tested else None,
        "examples": int(generated.group(1)) if generated else None,
        "failures": len(junit.getroot().findall(".//failure")) + len(junit.getroot().findall(".//error")),
    }


def schema_operations(url: str) -> int:
    with urllib.request.urlopen(f"{url}/api/schema/?format=json", timeout=30) as answer:
        schema = json.load(answer)
    return sum(1 for item in schema["paths"].values() for method in item
               if method in {"get", "put", "post", "patch", "delete"})


def test_the_api_answers_as_its_schema_says(world, tmp_path):
    """Anonymously, then as the organiser (one world for both: the demo takes longer to load
    than a run takes)."""
    operations = schema_operations(world["url"])
    for identity, headers in (("anonymous", ()), ("organiser", (f"Authorization: Token {world['token']}",))):
        run = schemathesis_run(world["url"], tmp_path / identity, headers=headers)
        figures = {key: run[key] for key in ("operations", "examples", "failures", "seconds")}
        print(f"schemathesis as {identity}: {json.dumps(figures)}")
        assert run["code"] == 0 and run["failures"] == 0, run["output"][-20000:]
        assert run["operations"] == operations, run["output"][-5000:]
        assert run["seconds"] < BUDGET_S, f"schemathesis took {run['seconds']:.0f} s, over its {BUDGET_S} s"
