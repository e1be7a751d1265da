"""Live tables: schema (the closed wire protocol), view (what a viewer sees), manager (actions meet the engine)."""
