"""The daily challenge, its leaderboards, and club tournaments: deals of duplicate dice played solo."""
