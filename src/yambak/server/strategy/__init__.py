"""Strategy figures computed on the server for rulesets without shipped ones (`jobs.py`)."""

from .jobs import Progress, StrategyJobs

__all__ = ["Progress", "StrategyJobs"]
