"""The view's TypedDicts (`yambak.viewtypes`, pydantic-free: they run on phones) and the pydantic models
of the protocol say the same thing: every TypedDict has the keys of its model, and a key is required in
one exactly where it is required in the other. A field added on one side only fails here.

(No `from __future__ import annotations`: Python 3.11 reads `NotRequired` only from live annotations.)"""

import subprocess
import sys
from typing import Literal, NotRequired, TypedDict, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from yambak import viewtypes
from yambak.server.keeper import schema as sheet_schema
from yambak.server.session import views
from yambak.server.tables import schema as table_schema

# Each TypedDict of yambak.viewtypes and the model it mirrors.
MODELS: dict[str, type[BaseModel]] = {
    "Cell": views.Cell,
    "Column": views.Column,
    "BoxOutlook": views.BoxOutlook,
    "CategoryPoints": views.CategoryPoints,
    "TurnView": views.TurnView,
    "HiddenTurn": views.HiddenTurn,
    "Player": views.Player,
    "RolloffDice": views.RolloffDice,
    "RoundEntry": views.RoundEntry,
    "Round": views.Round,
    "OutrightWin": views.OutrightWin,
    "Decided": views.Decided,
    "Sentence": views.Sentence,
    "GameView": views.GameView,
    "Phrase": views.Phrase,
    "RulesRow": views.RulesRow,
    "RulesColumn": views.RulesColumn,
    "UpperBonus": views.UpperBonus,
    "RulesLayout": views.RulesLayout,
    "SheetPlayer": sheet_schema.SheetPlayer,
    "HistoryEntry": sheet_schema.HistoryEntry,
    "SheetAction": sheet_schema.SheetAction,
    "SheetView": sheet_schema.SheetView,
    "TablePlayer": table_schema.TablePlayer,
    "TableView": table_schema.TableView,
    "DealOut": table_schema.DealOut,
    "TableSettingsOut": table_schema.TableSettingsOut,
    "SeatingOut": table_schema.SeatingOut,
    "NonceOut": table_schema.NonceOut,
    "FairnessOut": table_schema.FairnessOut,
    "PlayedFor": table_schema.PlayedFor,
    "CoachAction": table_schema.CoachAction,
    "CoachOption": table_schema.CoachOption,
    "CoachAdvice": table_schema.CoachAdvice,
    # the session protocol's messages (generic models: a table's, with its view and event)
    "Welcome": views.Welcome,
    "Ack": views.Ack,
    "Missed": views.Missed[table_schema.TableEvent],
    "EventMessage": views.EventMessage[table_schema.TableView, table_schema.TableEvent],
    "EventsMessage": views.EventsMessage[table_schema.TableView, table_schema.TableEvent],
    "StateMessage": views.StateMessage[table_schema.TableView],
}


def _differences(typed: type, model: type[BaseModel]) -> list[str]:
    """What the TypedDict says otherwise than the model: keys on one side only, and keys required on one
    side only (a model's field is required when it has no default)."""
    keys = set(typed.__annotations__)
    required = set(typed.__required_keys__)  # type: ignore[attr-defined]
    fields = model.model_fields
    model_required = {name for name, field in fields.items() if field.is_required()}
    out = [f"{k}: only in the TypedDict" for k in sorted(keys - set(fields))]
    out += [f"{k}: only in the model" for k in sorted(set(fields) - keys)]
    out += [f"{k}: required in the TypedDict only" for k in sorted((required - model_required) & set(fields))]
    out += [f"{k}: required in the model only" for k in sorted((model_required - required) & keys)]
    hints = get_type_hints(typed)
    for k in sorted(keys & set(fields)):  # a word list (Literal) says the same words on both sides
        mine, theirs = _literals(hints[k]), _literals(fields[k].annotation)
        if mine != theirs and (mine or theirs):
            out.append(f"{k}: the words {sorted(mine)} against the model's {sorted(theirs)}")
    return out


def _literals(annotation: object) -> set[object]:
    """The values of the Literals in an annotation (through NotRequired, unions and None), empty if none."""
    if get_origin(annotation) is Literal:
        return set(get_args(annotation))
    return {v for arg in get_args(annotation) if get_origin(arg) is not list for v in _literals(arg)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_typeddict_mirrors_its_model(name):
    typed = getattr(viewtypes, name)
    assert _differences(typed, MODELS[name]) == []


# Names of yambak.viewtypes that are type aliases, not TypedDicts: no model to mirror.
ALIASES = {"JSONValue", "JSONObject", "SessionView"}


def test_every_typeddict_is_checked():
    assert set(viewtypes.__all__) - ALIASES == set(MODELS)


def test_a_field_on_one_side_only_is_found():
    """The comparison itself: a TypedDict with a key the model lacks, without one it has, or with a
    required key the model gives a default, each differs."""

    class Extra(viewtypes.Round):
        late: int

    class Optional(TypedDict):
        round: NotRequired[int]
        players: list[viewtypes.RoundEntry]

    class Missing(TypedDict):
        round: int

    assert _differences(Extra, views.Round) == ["late: only in the TypedDict"]
    assert _differences(Optional, views.Round) == ["round: required in the model only"]
    assert _differences(Missing, views.Round) == ["players: only in the model"]

    class Worded(viewtypes.CoachAdvice):
        measure: Literal["score", "match_points"]  # type: ignore[misc]

    assert _differences(Worded, table_schema.CoachAdvice) == [
        "measure: the words ['match_points', 'score'] against the model's ['category_points', 'match_points', 'score']"
    ]
    assert _differences(viewtypes.Player, views.Player) == []
    assert _differences(viewtypes.Column, views.Column) == []


def test_views_are_free_of_pydantic():
    """gameview and its types run on phones (Pyodide), where pydantic does not: neither imports it."""
    code = "import sys, yambak.gameview, yambak.viewtypes, yambak.keeper; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
