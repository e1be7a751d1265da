"""Languages: complete catalogs, names players know (docs/rules.md §10), choice from the browser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from yambak.rules import preset_ids
from yambak.rules.loader import preset_data
from yambak.web import LOCALE
from yambak.web.i18n import (
    JS_PLURALS,
    LANGUAGES,
    js_strings,
    labels,
    pick_language,
    ruleset_name,
    translations,
)

ROOT = Path(__file__).resolve().parents[2]


PLACEHOLDERS = ("{n}", "{name}", "{box}", "{value}", "{column}", "{roll}", "{high}", "{low}", "{sum}", "{threshold}")


def _msgids():
    """(context, msgid, plural msgid or None) of every text the catalogs must translate."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "messages.py")], capture_output=True, text=True, check=True
    ).stdout
    return [(*line.split("\t"), None)[:3] for line in out.splitlines()]


def test_eight_languages():
    assert set(LANGUAGES) == {"en", "nl", "fr", "de", "sv", "hr", "es", "it"}


@pytest.mark.parametrize("lang", sorted(set(LANGUAGES) - {"en"}))
def test_catalog_is_complete(lang):
    with (LOCALE / lang / "LC_MESSAGES" / "yambak.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    ids = _msgids()
    assert len(ids) > 100 and any(plural for _, _, plural in ids)
    rule = translations(lang).plural  # the form each count takes, by the catalog's Plural-Forms
    only_one = {i for i in range(catalog.num_plurals) if {n for n in range(1000) if rule(n) == i} == {1}}
    for ctx, msgid, plural in ids:
        message = catalog.get(msgid, context=ctx or None)
        assert message is not None and message.string, (lang, ctx, msgid)
        if plural is not None:  # every form, and {n} in each but one said of 1 alone ("letztes Spiel")
            forms = message.string
            assert isinstance(forms, tuple) and len(forms) == catalog.num_plurals and all(forms), (lang, msgid)
            for i, form in enumerate(forms):
                for placeholder in PLACEHOLDERS:
                    if placeholder != "{n}" or i not in only_one:
                        assert (placeholder in plural) == (placeholder in form), (lang, msgid, i)
            continue
        for placeholder in (
            "{n}",
            "{name}",
            "{box}",
            "{value}",
            "{column}",
            "{roll}",
            "{high}",
            "{low}",
            "{sum}",
            "{threshold}",
        ):
            assert (placeholder in msgid) == (placeholder in message.string), (lang, msgid)


def test_names_players_know():
    assert labels("nl")["rows"]["three_kind"] == "Drie dezelfde"
    assert labels("nl")["columns"]["down"] == "Naar beneden"
    assert labels("de")["rows"]["three_kind"] == "Dreierpasch"
    assert labels("de")["rows"]["small_straight"] == "Kleine Straße"
    assert labels("fr")["rows"]["three_kind"] == "Brelan"
    assert labels("fr")["columns"]["dry"] == "Sèche"
    assert labels("en")["rows"]["full_house"] == "Full house"
    assert labels("sv")["rows"]["three_kind"] == "Tretal" and labels("sv")["rows"]["full_house"] == "Kåk"
    assert labels("sv")["rows"]["small_straight"] == "Liten stege" and labels("sv")["columns"]["down"] == "Ned"
    assert labels("hr")["rows"]["straight"] == "Kenta" and labels("hr")["rows"]["four_kind"] == "Poker"
    assert labels("hr")["rows"]["yam"] == "Jamb" and labels("hr")["columns"]["announce"] == "Najava"
    assert labels("hr")["columns"]["hand"] == "Ručna" and labels("hr")["columns"]["down"] == "Dolje"
    assert labels("es")["rows"]["large_straight"] == "Escalera mayor" and labels("es")["rows"]["four_kind"] == "Póker"
    assert labels("it")["rows"]["straight"] == "Scala" and labels("it")["rows"]["full_house"] == "Full"


def test_language_from_the_browser_and_the_switcher():
    assert pick_language(None, None, "de-DE,de;q=0.9,en;q=0.5") == "de"
    assert pick_language(None, None, "fr-BE;q=0.8, nl-BE") == "nl"
    assert pick_language(None, None, "ja") == "en"
    assert pick_language(None, "fr", "de") == "fr"  # the switcher's cookie wins over the browser
    assert pick_language("nl", "fr", "de") == "nl"
    assert pick_language("xx", None, None) == "en"


def test_pages_are_served_in_the_chosen_language(client):
    r = client.get("/", headers={"accept-language": "nl-BE,nl;q=0.9"})
    assert '<html lang="nl">' in r.text and "Tafel maken" in r.text
    r = client.get("/?lang=de")
    assert "Tisch erstellen" in r.text and r.cookies.get("yambak_lang") == "de"
    assert "Créer la table" in client.get("/?lang=fr").text
    client.cookies.clear()
    page = client.get("/keep/", headers={"accept-language": "hr-HR,hr;q=0.9"}).text
    assert '<html lang="hr">' in page and "Novi listić" in page
    for code in LANGUAGES:  # the switcher offers all eight
        assert f'hreflang="{code}"' in page
    assert "Nueva hoja de puntos" in client.get("/keep/?lang=es").text
    assert "Nuova scheda" in client.get("/keep/?lang=it").text


def test_preset_texts_are_the_files_texts():
    """The msgids of the presets are their files' own texts (the registry reads them): every name,
    description, lobby line and option line of every preset."""
    from yambak.rules.registry import preset_info, preset_texts

    texts = set(preset_texts())
    for pid in preset_ids():
        data, info = preset_data(pid), preset_info(pid)
        assert ("ruleset", data["name"]) in texts and ("ruleset", data["description"]) in texts, pid
        assert ("lobby", info.blurb) in texts
        for key, spec in data.get("options", {}).items():
            assert ("option", spec["description"]) in texts, (pid, key)


def test_preset_names_in_the_chosen_language(client):
    assert ruleset_name("yammen", "Yammen (Belgian)", "nl") == "Yammen (Belgisch)"
    assert ruleset_name("yams-de", "Yams! (German)", "de") == "Yams! (deutsch)"
    assert ruleset_name("yammen", "Our house rules", "nl") == "Our house rules"  # a custom name stays
    page = client.get("/?lang=de").text
    assert "Yams! (deutsch)" in page and "Yams! (German)" not in page
    assert "Wie viele Spalten: 1 (normal)" in page
    page = client.get("/keep/?lang=sv").text
    assert "Yammen (belgisk)" in page and "Yammen (Belgian)" not in page
    r = client.post(
        "/keep?lang=sv", data={"name": "Kväll", "preset": "yammen", "player0": "Ann"}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    assert "Yammen (belgisk)" in client.get(r.headers["location"] + "?lang=sv").text
    r = client.post(
        "/tables",
        data={"name": "Abend", "preset": "yams-de", "seat0_kind": "human", "seat0_name": "Ann", "listed": "on"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    assert "Yams! (deutsch)" in client.get(r.headers["location"] + "?lang=de").text
    assert "Yams! (deutsch)" in client.get("/?lang=de").text.split("Abend", 1)[1]  # the lobby's list
    custom = 'extends = "yammen"\nid = "yammen"\nname = "Our house rules"\n'  # a user's ruleset: its own name
    r = client.post("/keep", data={"name": "Home", "custom": custom, "player0": "Ann"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert "Our house rules" in client.get(r.headers["location"] + "?lang=nl").text


def test_plurals_in_the_browser_choose_the_forms_python_does(tmp_path):
    """static/plural.js reads each catalog's Plural-Forms without eval; under Node it picks, for every
    count from 0 to 1,000,000 of a sample, the form Python's gettext picks. Pages get the forms."""
    import json
    import shutil

    from tests.conftest import missing_service
    from yambak.web import STATIC

    node = shutil.which("node")
    if node is None:
        missing_service("node is not installed (make install installs npm with it)")
    counts = [*range(0, 230), 1000, 1001, 1011, 1021, 100000, 1000000, 2000000]
    # the Plural-Forms expression each page is given (English has no catalog: the pages' own n != 1)
    rules = {lang: js_strings(lang).get("\u0000", "(n != 1)") for lang in LANGUAGES}
    script = tmp_path / "plurals.mjs"
    script.write_text(
        f"import {{ pluralRule }} from {json.dumps((STATIC / 'plural.js').as_uri())};\n"
        f"const rules = {json.dumps(rules)}, counts = {json.dumps(counts)};\n"
        "const out = {};\n"
        "for (const [lang, expr] of Object.entries(rules)) {\n"
        "  const f = pluralRule(expr);\n"
        "  out[lang] = counts.map((n) => Number(f(n)));\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    got = json.loads(subprocess.run([node, str(script)], capture_output=True, text=True, check=True).stdout)
    for lang in LANGUAGES:
        python = translations(lang).plural if lang != "en" else (lambda n: int(n != 1))
        assert got[lang] == [python(n) for n in counts], lang
    assert {1, 2} <= set(got["hr"]) and "1 player" not in json.dumps(js_strings("hr"))
    strings = js_strings("hr")
    assert strings["\u0000"] == rules["hr"] and len(strings["{n} pt\u0000{n} pts"]) == 3
    assert ("{n} pt", "{n} pts") in JS_PLURALS


def test_one_english_word_two_meanings_and_plurals_on_pages(client):
    """An "open" round is not an "open" (empty) box; "1 player", not "1 players"."""
    assert (
        translations("fr").pgettext("round", "open") == "ouverte"
        and translations("fr").pgettext("box", "open") == "vide"
    )
    assert js_strings("fr")["box\u0004open"] == "vide"
    r = client.post("/api/me", json={"name": "Ann"}, headers={"origin": "http://127.0.0.1"})
    assert r.status_code == 201
    club = client.post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 1, "window": 60}).json()
    page = client.get(f"/c/{club['id']}").text
    assert "1 round · 1 player" in page and "1 players" not in page
    page = client.get(f"/c/{club['id']}?lang=fr").text
    assert "1 manche · 1 joueur" in page and ">ouverte<" in page and ">vide<" not in page
    assert "1 kolo · 1 igrač" in client.get(f"/c/{club['id']}?lang=hr").text


def test_a_catalog_is_compiled_once_and_read_back_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first start in a language compiles its .po into the cache folder (under the .po's digest, an
    earlier version's file removed); the next start reads that file, and every text of the catalog reads
    the same either way; a damaged file is compiled again."""
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    stale = tmp_path / "locale" / "hr-0000000000000000.mo"
    stale.parent.mkdir()
    stale.write_bytes(b"an older catalog")
    with (LOCALE / "hr" / "LC_MESSAGES" / "yambak.po").open("rb") as f:
        catalog = read_po(f, locale="hr")
    try:
        translations.cache_clear()
        compiled = translations("hr")
        kept = list((tmp_path / "locale").glob("hr-*.mo"))
        assert len(kept) == 1 and kept[0] != stale and not stale.exists()
        translations.cache_clear()
        read_back = translations("hr")
        for message in catalog:
            if not message.id or not message.string or isinstance(message.id, tuple):
                continue
            said = read_back.pgettext(message.context, message.id) if message.context else read_back.gettext(message.id)
            assert said == message.string, message.id
            assert said == (
                compiled.pgettext(message.context, message.id) if message.context else compiled.gettext(message.id)
            )
        assert read_back.ngettext("{n} pt", "{n} pts", 3) == compiled.ngettext("{n} pt", "{n} pts", 3)
        kept[0].write_bytes(b"half a file")
        translations.cache_clear()
        assert translations("hr").pgettext("row", "Ones") == compiled.pgettext("row", "Ones") != "Ones"
    finally:
        translations.cache_clear()
