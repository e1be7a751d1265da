"""Rulesets as data: row kinds, column kinds, relations and the shipped presets."""

from .loader import RulesetError, load_ruleset, load_ruleset_file, parse_options, preset_ids
from .model import Column, Joker, Match, Relation, Row, Ruleset, UpperBonus
from .scoring import row_met, row_score

__all__ = [
    "Column",
    "Joker",
    "Match",
    "Relation",
    "Row",
    "Ruleset",
    "RulesetError",
    "UpperBonus",
    "load_ruleset",
    "load_ruleset_file",
    "parse_options",
    "preset_ids",
    "row_met",
    "row_score",
]
