"""Terminal faces: the score-keeper for real dice and the terminal game."""
