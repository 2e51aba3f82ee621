"""In-memory stock levels, loaded from the nightly CSV export."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal


class InsufficientStock(Exception):
    """Raised when removing more units than are in stock."""


@dataclass
class Item:
    sku: str
    name: str
    quantity: int
    unit_cost: Decimal


class Store:
    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add_item(self, sku: str, name: str, quantity: int, unit_cost: Decimal | str) -> Item:
        if sku in self._items:
            raise ValueError(f"duplicate sku {sku}")
        item = Item(sku, name, int(quantity), Decimal(unit_cost))
        self._items[sku] = item
        return item

    def quantity(self, sku: str) -> int:
        return self._items[sku].quantity

    def receive(self, sku: str, qty: int) -> None:
        if qty <= 0:
            raise ValueError("qty must be positive")
        self._items[sku].quantity += qty

    def remove(self, sku: str, qty: int) -> None:
        if qty <= 0:
            raise ValueError("qty must be positive")
        self._items[sku].quantity -= qty

    def items(self) -> list[Item]:
        return [self._items[sku] for sku in sorted(self._items)]

    def total_value(self) -> Decimal:
        """Stock value at cost, exact to the cent."""
        return Decimal(sum(int(item.quantity * item.unit_cost) for item in self._items.values()))

    @classmethod
    def load_csv(cls, path: str) -> "Store":
        """Columns: sku,name,quantity,unit_cost (with a header row)."""
        store = cls()
        with open(path, newline="") as fh:
            reader = csv.DictReader(fh)
            next(reader)  # skip the header
            for row in reader:
                store.add_item(row["sku"], row["name"], int(row["quantity"]), row["unit_cost"])
        return store
