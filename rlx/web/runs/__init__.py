"""Rollouts as a visitor sees them: run and batch pages, their streams, community, compare and Your runs."""
