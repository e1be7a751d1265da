"""What a stranger can find of a shared profile: its games by their random ids only (counting finds
nothing), no page of a person indexed by search engines, titles that say whose page it is."""

from __future__ import annotations

import re

from .deal_helpers import ORIGIN
from .helpers import browser
from .profile_helpers import new_table, play_out


def test_a_shared_profiles_games_cannot_be_counted_and_are_not_indexed(client) -> None:
    for _ in range(2):
        made = new_table(client, seats=[{"name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Robo"}])
        play_out(client, made["id"], [made["tokens"]["0"]])
    me = client.patch("/api/me", json={"shared": True}, headers=ORIGIN).json()["profile"]
    games = client.get("/api/me/games").json()["games"]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{16}", g["id"]) for g in games)
    stranger = browser(client)
    assert stranger.get(f"/replay/{games[0]['id']}").status_code == 200  # shared: the link works
    for n in range(1, 51):  # the old addresses counted results: nothing answers them now
        for url in (
            f"/replay/{n}",
            f"/api/results/{n}/frames/1",
            f"/api/results/{n}/review",
            f"/api/results/{n}/record",
        ):
            assert stranger.get(url).status_code == 404, url
    for url in (f"/p/{me['id']}", f"/p/{me['id']}/stats", f"/replay/{games[0]['id']}", "/me", f"/t/{made['id']}"):
        r = stranger.get(url)
        assert r.headers.get("x-robots-tag") == "noindex, nofollow", url
        assert '<meta name="robots" content="noindex, nofollow">' in r.text, url
    page = stranger.get(f"/p/{me['id']}").text
    assert "<title>Games of Ann — yambak</title>" in page and "My games —" not in page
    assert "<title>Statistics of Ann — yambak</title>" in stranger.get(f"/p/{me['id']}/stats").text
    assert "<title>My games — yambak</title>" in client.get("/me").text  # the owner's own
    assert "noindex" not in stranger.get("/daily").text  # the challenge is for everyone to find
    robots = stranger.get("/robots.txt")
    assert robots.status_code == 200 and robots.headers["content-type"].startswith("text/plain")
    for path in ("/p/", "/replay/", "/me", "/t/", "/api/"):
        assert f"Disallow: {path}\n" in robots.text
