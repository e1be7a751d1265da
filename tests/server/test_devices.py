"""A profile on several devices: each is listed with what it is and when it was last seen, and any of
them can be signed out from another; moving the profile by its link signs nothing else out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings

from .deal_helpers import ORIGIN
from .helpers import browser
from .profile_helpers import profile_settings

PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
)
LAPTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
TABLET = (
    "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/604.1"
)


@pytest.fixture
def settings(tmp_path, clock) -> Settings:
    return profile_settings(tmp_path, clock)


def _device(client: TestClient, agent: str) -> TestClient:
    return browser(client, headers={"user-agent": agent, **ORIGIN})


def _move(source: TestClient, target: TestClient) -> None:
    code = source.post("/api/me/link").json()["url"].rsplit("/", 1)[1]
    assert target.post(f"/api/me/move/{code}").status_code == 200


def test_devices_are_listed_and_signed_out_from_any_of_them(client, clock) -> None:
    phone, laptop, tablet = _device(client, PHONE), _device(client, LAPTOP), _device(client, TABLET)
    assert phone.post("/api/me", json={"name": "Ann"}).status_code == 201
    clock.now += timedelta(hours=2)
    _move(phone, laptop)
    clock.now += timedelta(days=3)
    assert laptop.get("/api/me").json()["profile"]["name"] == "Ann"  # seen today
    _move(laptop, tablet)
    # moving signed nothing out: three devices, each saying what it is
    devices = tablet.get("/api/me/devices").json()["devices"]
    assert [(d["label"], d["this"]) for d in devices] == [
        ("Safari · iPad", True), ("Firefox · Linux", False), ("Chrome · Android", False),
    ]  # fmt: skip
    assert devices[1]["seen"] == "2026-03-05T14:00:00Z" and devices[2]["seen"] == "2026-03-02T12:00:00Z"
    assert all(phone.get("/api/me").json()["profile"] for _ in range(2))
    page = laptop.get("/me/profile").text
    assert "Chrome · Android" in page and "Safari · iPad" in page and "this device" in page
    # the tablet signs the phone out: the phone has no profile any more
    assert tablet.delete(f"/api/me/devices/{devices[2]['id']}").status_code == 204
    assert phone.get("/api/me").json() == {"profile": None}
    assert tablet.delete(f"/api/me/devices/{devices[2]['id']}").json()["code"] == "profile/device"
    # another profile cannot sign Ann's devices out, nor see them
    bram = _device(client, PHONE)
    bram.post("/api/me", json={"name": "Bram"})
    assert bram.delete(f"/api/me/devices/{devices[1]['id']}").status_code == 404
    assert [d["label"] for d in bram.get("/api/me/devices").json()["devices"]] == ["Chrome · Android"]
    assert browser(client).get("/api/me/devices").status_code == 401
    # the laptop signs itself out from the profile page's form
    mine = next(d for d in laptop.get("/api/me/devices").json()["devices"] if d["this"])
    r = laptop.post(f"/me/devices/{mine['id']}/sign-out", follow_redirects=False)
    assert r.status_code == 303 and laptop.get("/api/me").json() == {"profile": None}
    assert [d["label"] for d in tablet.get("/api/me/devices").json()["devices"]] == ["Safari · iPad"]


def test_a_device_that_moves_to_another_profile_leaves_the_one_it_had(client) -> None:
    ann, bram = _device(client, PHONE), _device(client, LAPTOP)
    ann.post("/api/me", json={"name": "Ann"})
    bram.post("/api/me", json={"name": "Bram"})
    _move(ann, bram)  # the page said: this device will play as Ann instead of Bram
    assert bram.get("/api/me").json()["profile"]["name"] == "Ann"
    assert len(ann.get("/api/me/devices").json()["devices"]) == 2
    with client.app.state.store.engine.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("select count(*) from profile_keys")).scalar() == 2  # Bram's key went
