"""`yambak play --join` against a server that lies: a small websockets server written here sends a JSON array,
a message of the wrong shape, texts with terminal escape sequences (clipboard write, window title, clear
screen) and, at the end, a record whose dice do not mix in the client's nonce. The client skips what the
protocol does not allow and lives on, strips every text, and does not call such dice verified.
"""

from __future__ import annotations

import asyncio
import json
import random
from http import HTTPStatus
from pathlib import Path
from typing import Any

import httpx

from yambak.bots import random_policy
from yambak.engine import FairDice, Nonce, new_game, state_to_record
from yambak.engine.fairness import commitment
from yambak.rules import load_ruleset
from yambak.terminal.online import OnlineTable, SavedState
from yambak.terminal.wire import clean_text

from .test_online import TWO_ROWS, base, in_a_thread  # noqa: F401  (the server fixture)

SEED = "c0" * 32
THEIRS = Nonce(1, "ab" * 8)
CLIPBOARD, TITLE, CLEAR = "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]0;owned\x1b\\", "\x1b[2J"


def _record(nonces: tuple[Nonce, ...]) -> dict[str, Any]:
    """A finished two-player game whose dice come from SEED and exactly these nonces."""
    dice = FairDice(SEED, nonces)
    state = new_game(load_ruleset("yams"), ["Ann", "Tess"], dice=dice)
    rng = random.Random(5)
    while not state.finished:
        state, _ = state.apply(random_policy(state, state.to_act()[0], rng))
    record = state_to_record(state).to_dict()
    record["fairness"] = dice.block(revealed=True)
    return record


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [s for k, v in items for s in [*_strings(k), *_strings(v)]]


def test_clean_text_strips_every_sequence() -> None:
    text = f"Ann{CLIPBOARD}{TITLE}{CLEAR}\x1b[31mred\x1b[0m\x9b2J\x9d0;t\x9c\x1bP+q\x1b\\\u202eok\x07\tend\n"
    assert clean_text(text) == "Annredok end "
    assert clean_text("\x1b]0;never ends") == "" and clean_text("naïve 6·6 ×") == "naïve 6·6 ×"


def test_a_hostile_server_is_skipped_stripped_and_not_believed(base: str, tmp_path: Path) -> None:  # noqa: F811
    from websockets.asyncio.server import serve

    made = httpx.post(base + "/api/tables", json={"name": "T", "rules": TWO_ROWS, "seats": [{"name": "Ann"}]}).json()
    view = httpx.get(f"{base}/api/tables/{made['id']}").json()  # a real view, then made hostile
    view["players"][0]["name"] = f"Ann{CLIPBOARD}{TITLE}{CLEAR}"
    view["fairness"]["commitment"] = commitment(SEED)
    view["players"][0]["kind"] = "human"
    got: list[dict[str, Any]] = []
    mixes_ours = {"yes": False}

    def process_request(connection: Any, request: Any) -> Any:
        if not request.path.endswith("/record"):
            return None  # the socket
        ours = tuple(Nonce(0, m["nonce"]) for m in got if m["type"] == "nonce")
        return connection.respond(HTTPStatus.OK, json.dumps(_record((ours if mixes_ours["yes"] else ()) + (THEIRS,))))

    async def hostile(ws: Any) -> None:
        await ws.recv()  # hello
        await ws.send(json.dumps([{"type": "welcome"}]))
        await ws.send(json.dumps({"type": "state", "v": "seven", "view": ["not", "a", "view"]}))
        await ws.send(json.dumps({"type": "welcome", "v": 0, "seats": [0], "protocol": 1}))
        await ws.send(json.dumps({"type": "state", "v": 0, "view": view}))
        async for text in ws:
            got.append(json.loads(text))
            message = f"{CLIPBOARD}{TITLE}{CLEAR}refused"
            await ws.send(json.dumps({"type": "error", "code": "illegal/x", "message": message}))

    async def main() -> None:
        async with serve(hostile, "127.0.0.1", 0, process_request=process_request) as server:
            port = server.sockets[0].getsockname()[1]
            table = OnlineTable(f"http://127.0.0.1:{port}/t/{made['id']}", saved=SavedState(tmp_path))
            said: list[str] = []
            table.on_said = said.append
            await table.start(timeout=10)  # the array and the bad state did not end the loop
            for _ in range(200):  # the client's nonce for its seat, answered with an escape-laden refusal
                if any(m["type"] == "nonce" for m in got) and "refused" in said:
                    break
                await asyncio.sleep(0.05)
            assert said.count("A message from the server was not understood (skipped).") == 2
            assert "refused" in said and table.closed is None and table.seats == [0]
            assert table.view["players"][0]["name"] == "Ann"
            shown = "".join(said) + "".join(_strings(table.view))
            assert not any(c in shown for c in "\x1b\x07\x9b\x9d")

            verdict = await asyncio.to_thread(table.check_dice)  # a record without our nonce
            assert verdict.startswith("NOT VERIFIED") and "nonce" in verdict, verdict
            assert "Fair dice verified" not in verdict
            mixes_ours["yes"] = True  # the same game with our nonce mixed in: now it checks out
            assert (await asyncio.to_thread(table.check_dice)).startswith("Fair dice verified"), verdict
            await table.stop()

    in_a_thread(main)
