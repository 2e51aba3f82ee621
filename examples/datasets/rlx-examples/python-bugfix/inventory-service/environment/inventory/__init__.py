"""Warehouse inventory service: stock levels and reports."""

from inventory.store import InsufficientStock, Item, Store

__all__ = ["InsufficientStock", "Item", "Store"]
