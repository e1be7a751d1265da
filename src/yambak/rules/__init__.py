"""Rulesets as data: row kinds, column kinds, relations and the shipped presets."""

from .loader import (
    POINTS_LIMIT,
    RulesetError,
    check_house_rules,
    load_ruleset,
    load_ruleset_arg,
    load_ruleset_file,
    parse_options,
    preset_ids,
    read_ruleset_file,
)
from .model import Column, Joker, Match, Relation, Row, Ruleset, UpperBonus
from .scoring import row_met, row_score

__all__ = [
    "Column",
    "Joker",
    "Match",
    "POINTS_LIMIT",
    "Relation",
    "Row",
    "Ruleset",
    "RulesetError",
    "UpperBonus",
    "check_house_rules",
    "load_ruleset",
    "load_ruleset_arg",
    "load_ruleset_file",
    "parse_options",
    "preset_ids",
    "read_ruleset_file",
    "row_met",
    "row_score",
]
