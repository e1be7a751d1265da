"""Score-keeper sheets for real dice: schema (messages), view (what phones see), manager (entries)."""
