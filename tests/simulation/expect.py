"""The ``expect`` block of a scenario file, checked as ``../shared/tools/check_scenarios.py``
checks it (plus ``rejected_reason_contains``: parts the refusal's reason must contain)."""
from __future__ import annotations


def matches(partial: dict, value: dict) -> bool:
    """Every key of ``partial`` equals ``value``'s (``*_in``: one of a list; dicts partially)."""
    for key, want in partial.items():
        if key.endswith("_in"):
            if value.get(key[:-3]) not in want:
                return False
        elif isinstance(want, dict):
            got = value.get(key)
            if not isinstance(got, dict) or not matches(want, got):
                return False
        elif value.get(key) != want:
            return False
    return True


def problems(doc: dict, out: dict) -> list[str]:
    """What the runner's output ``out`` does not meet of ``doc["expect"]`` (empty: all met)."""
    found = []
    exp = doc.get("expect", {})
    events = out.get("events", [])
    for p in exp.get("events_include", []):
        if not any(matches(p, e) for e in events):
            found.append(f"missing event {p} in {events} (rejected: {out.get('rejected')})")
    for p in exp.get("events_exclude", []):
        hit = [e for e in events if matches(p, e)]
        if hit:
            found.append(f"unexpected event {hit[0]}")
    if "state" in exp and not matches(exp["state"], out.get("state", {})):
        got = {k: out.get("state", {}).get(k) for k in exp["state"]}
        found.append(f"state {got} != {exp['state']}")
    if "rejected" in exp and bool(out.get("rejected")) != exp["rejected"]:
        found.append(f"rejected={out.get('rejected')!r}, expected {'a refusal' if exp['rejected'] else 'none'}")
    for part in exp.get("rejected_reason_contains", []):
        if not out.get("rejected") or part not in out["rejected"]["reason"]:
            found.append(f"refusal reason lacks {part!r}: {out.get('rejected')!r}")
    return found
