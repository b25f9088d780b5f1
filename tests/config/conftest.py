"""Fixtures of the configuration's tests."""
from __future__ import annotations

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher


@pytest.fixture
def hashes(monkeypatch):
    """Counts the passwords hashed (every check or set of a password hashes once)."""
    calls = []
    encode = MD5PasswordHasher.encode

    def counted(self, password, salt):
        calls.append(password)
        return encode(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "encode", counted)
    return calls
