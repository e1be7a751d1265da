"""Players remembered: profiles, their results, history and statistics."""
