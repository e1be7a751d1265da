"""One `score` at a table, followed through the code (`sys.setprofile`): it enters the table manager,
leaves it for the engine and the session core, the table's kind and its parts, and never comes back
to a new function of `tables/manager.py` (issue 31: 7 returns to the manager before the session core took
a `SessionKind`). `python tests/server/test_trace.py` prints the rooms it visits, in order."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from yambak.server.settings import Settings
from yambak.server.tables import schema
from yambak.server.tables.manager import TableManager
from yambak.store import Store

SERVER = Path(__file__).resolve().parents[2] / "src" / "yambak" / "server"
MANAGER = "tables/manager.py"


def _traced_score(tmp_path: Path) -> list[str]:
    """The server's modules whose functions a `score` enters, in order (a coroutine resumed is no new entry)."""
    entered: list[str] = []
    seen: dict[int, FrameType] = {}  # the frames held: an id is not reused meanwhile

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if SERVER not in path.parents:
            return
        if id(frame) in seen:  # an awaiting coroutine resumed: the same stay
            return
        seen[id(frame)] = frame
        entered.append(path.relative_to(SERVER).as_posix())

    async def main() -> None:
        manager = TableManager(Store(f"sqlite:///{tmp_path}/t.db"), Settings(bot_delay=0.0))
        manager.loop = asyncio.get_running_loop()
        table, _ = manager.create("t", "yams", {}, [{"name": "Ann"}, {"name": "Bob"}])
        roll = schema.client_message.validate_python({"type": "roll", "seat": 0, "v": table.version})
        await manager.act(table, {0}, roll)  # type: ignore[arg-type]
        box = table.state.rules.box_id(table.state.legal_boxes(0)[0])
        score = schema.client_message.validate_python({"type": "score", "seat": 0, "v": table.version, "box": box})
        sys.setprofile(profile)
        try:
            await manager.act(table, {0}, score)  # type: ignore[arg-type]
        finally:
            sys.setprofile(None)
        assert table.state.current == 1, "the score was applied: Bob's turn"
        manager.store.close()

    asyncio.run(main())
    return entered


def _stays(entered: list[str]) -> list[str]:
    return [m for i, m in enumerate(entered) if i == 0 or entered[i - 1] != m]


def test_a_score_never_comes_back_to_the_table_manager(tmp_path: Path) -> None:
    entered = _traced_score(tmp_path)
    stays = _stays(entered)
    assert stays[0] == MANAGER, stays
    assert "session/core.py" in stays and "tables/kind.py" in stays, stays  # the commit, the table's hooks
    assert MANAGER not in stays[1:], f"back to the manager after leaving it: {stays}"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        stays = _stays(_traced_score(Path(tmp)))
    print(f"{len(stays)} stays in {len(set(stays))} rooms, {stays[1:].count(MANAGER)} returns to the manager:")
    print(" -> ".join(stays))
