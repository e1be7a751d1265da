"""An existing database of `make run` (migrations 0001-0002, a record stored per action) upgrades in place."""

from __future__ import annotations

import json
from datetime import datetime

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text

from yambak.engine import Roll, Score, SeededDice, new_game, state_to_record
from yambak.rules import load_ruleset
from yambak.server import Settings
from yambak.server.keeper.manager import KeeperManager
from yambak.server.tables.manager import TableManager
from yambak.store import Store
from yambak.store.store import _MIGRATIONS


def _old_database(url: str) -> None:
    """A database as the previous release left it: the whole record beside every event."""
    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
    state = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=SeededDice(5))
    now = datetime(2026, 1, 1)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO game_tables (id, name, rules, listed, duplicate, seed, version, finished, record, "
                "rematch, created_at, updated_at) VALUES ('old', 'Old', '\"yams\"', 1, 0, NULL, 0, 0, :rec, NULL, "
                ":now, :now)"
            ),
            {"rec": json.dumps(state_to_record(state).to_dict()), "now": now},
        )
        for seat, name in enumerate(["Ann", "Bram"]):
            conn.execute(
                text("INSERT INTO seats VALUES ('old', :seat, 'human', :name, :hash, NULL)"),
                {"seat": seat, "name": name, "hash": f"{seat}" * 64},
            )
        for v, action in enumerate([Roll(0), Score(0, "chance"), Roll(1)], start=1):
            state, event = state.apply(action)
            conn.execute(
                text("INSERT INTO events VALUES ('old', :v, :seat, :type, :data, :now)"),
                {"v": v, "seat": event.player, "type": event.type, "data": json.dumps(event.to_dict()), "now": now},
            )
            conn.execute(
                text("UPDATE game_tables SET version = :v, record = :rec WHERE id = 'old'"),
                {"v": v, "rec": json.dumps(state_to_record(state).to_dict())},
            )
        record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
        record["turns"] = [{"player": 0, "rolls": [[6, 6, 6, 6, 6]], "box": "yam"}]
        conn.execute(
            text("INSERT INTO keeper_sheets VALUES ('sheet', 'ABCDEF', 'Kitchen', 1, 0, :rec, :now, :now)"),
            {"rec": json.dumps(record), "now": now},
        )
        conn.execute(text("INSERT INTO keeper_entries VALUES ('sheet', 'entry-0001', 1, 'dice', :now)"), {"now": now})
    engine.dispose()
    return state


def test_an_old_database_upgrades_in_place_and_its_games_go_on(tmp_path):
    url = f"sqlite:///{tmp_path}/old.db"
    state = _old_database(url)
    store = Store(url)  # migrates to the newest revision
    with store.engine.connect() as conn:
        newest = max(p.name[:4] for p in (_MIGRATIONS / "versions").glob("0*.py"))
        assert conn.execute(text("select version_num from alembic_version")).scalar() == newest
    settings = Settings(database_url=url, warm_strategies=False)
    table = TableManager(store, settings).get("old")
    assert table.version == 3 and table.state.turns[1].dice == state.turns[1].dice  # mid-turn, as it was
    assert table.state.players == ("Ann", "Bram")
    sheet = KeeperManager(store, settings).get("sheet")
    assert sheet.version == 1 and sheet.state.total(0) == 50
    assert store.ref_version("sheet", "entry-0001") == 1  # the sheet's entries joined the one event log (0007)
    assert store.session_by_code("ABCDEF").id == "sheet" and [t.id for t in store.tables()] == ["old"]
    store.append("old", 4, 1, "scored", {"type": "scored", "player": 1})  # the log goes on from the old one
    assert [e.version for e in store.events("old")] == [1, 2, 3, 4]
    store.close()


def test_the_migrations_have_one_head_and_one_line():
    """Several pieces of work add migrations: they form one line, from 0001 to one head."""
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    scripts = ScriptDirectory.from_config(cfg)
    assert len(scripts.get_heads()) == 1, scripts.get_heads()
    line = [r.revision for r in scripts.walk_revisions()]
    assert line[-1] == "0001" and len(line) == len(set(line)) == len(list(scripts.walk_revisions()))


def test_a_downgrade_of_the_session_model_gives_the_sheets_back(tmp_path):
    """0007 moved kept sheets into the one session model; going back moves them out again, entries included."""
    url = f"sqlite:///{tmp_path}/back.db"
    _old_database(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0007")
        assert conn.execute(text("select kind, code from game_tables where id = 'sheet'")).one() == ("sheet", "ABCDEF")
        command.downgrade(cfg, "0006")
        assert conn.execute(text("select code, version from keeper_sheets")).all() == [("ABCDEF", 1)]
        assert conn.execute(text("select entry_id, version from keeper_entries")).all() == [("entry-0001", 1)]
        assert conn.execute(text("select id from game_tables")).scalars().all() == ["old"]
    engine.dispose()


def test_postgresql_keeps_no_statistics_on_the_events_json(pg_store):
    """0012: ANALYZE skips the events' JSON text (no query filters on it); the other columns keep theirs."""
    with pg_store.engine.connect() as conn:
        targets = dict(
            conn.execute(
                text(
                    "SELECT attname, attstattarget FROM pg_attribute "
                    "WHERE attrelid = 'events'::regclass AND attname IN ('data', 'table_id')"
                )
            ).all()
        )
    assert targets["data"] == 0 and targets["table_id"] != 0
