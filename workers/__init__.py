"""The RQ worker entry point: build the app once, then run every job inside its context."""
