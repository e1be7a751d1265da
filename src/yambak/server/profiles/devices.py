"""The devices a profile is signed in on, as its owner sees them: what each is (its browser and system,
read once from the User-Agent when it signed in), when it signed in and was last seen, and an id to sign
it out by (never its key, nor the key's hash)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

__all__ = ["device_id", "device_label"]

# First match wins: Edge and Opera say "Chrome" too, Chrome says "Safari".
_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
             ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Safari/", "Safari"))  # fmt: skip
_SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Mac OS X", "macOS"), ("Linux", "Linux"))  # fmt: skip


def device_label(user_agent: Any) -> str:
    """ "Firefox · Android" from a User-Agent; "" when it says nothing recognisable."""
    ua = user_agent if isinstance(user_agent, str) else ""
    browser = next((name for mark, name in _BROWSERS if mark in ua), "")
    system = next((name for mark, name in _SYSTEMS if re.search(re.escape(mark), ua)), "")
    return " · ".join(p for p in (browser, system) if p)


def device_id(key_hash: str) -> str:
    """The id the devices list gives a device key (a hash of its hash: nothing to sign in with)."""
    return hashlib.sha256(f"device:{key_hash}".encode()).hexdigest()[:16]
