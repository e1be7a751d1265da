"""Secrets handed to devices (seat tokens): only their hashes are stored."""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["hash_token", "new_token"]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)
