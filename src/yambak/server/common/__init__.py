"""What every server feature shares and none owns: names, tokens, the clock, page rendering, sealed
deal dice, and the events features tell each other by (`events.py`), so that tables, kept sheets,
profiles and deals never import one another (`tests/test_layers.py`)."""
