"""Ranked tables and their players' ratings (OpenSkill)."""
