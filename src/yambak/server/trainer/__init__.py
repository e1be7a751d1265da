"""The trainer's server side: pools per preset, next and daily positions, answers rated and stored."""
