"""Adapters: read each environment format through one contract."""
