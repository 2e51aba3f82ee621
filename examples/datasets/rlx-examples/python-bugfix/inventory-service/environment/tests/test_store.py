import os
import sys
import tempfile
import unittest
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from inventory import InsufficientStock, Store  # noqa: E402


def sample() -> Store:
    store = Store()
    store.add_item("SKU-1", "hex bolt M6", 100, "0.12")
    store.add_item("SKU-2", "washer M6", 40, "0.05")
    store.add_item("SKU-3", "bracket", 3, "4.75")
    return store


class StoreTest(unittest.TestCase):
    def test_receive(self):
        store = sample()
        store.receive("SKU-3", 7)
        self.assertEqual(store.quantity("SKU-3"), 10)

    def test_remove(self):
        store = sample()
        store.remove("SKU-1", 30)
        self.assertEqual(store.quantity("SKU-1"), 70)

    def test_remove_more_than_in_stock(self):
        store = sample()
        with self.assertRaises(InsufficientStock):
            store.remove("SKU-3", 4)
        self.assertEqual(store.quantity("SKU-3"), 3)

    def test_total_value_is_exact(self):
        self.assertEqual(sample().total_value(), Decimal("28.25"))

    def test_items_sorted(self):
        self.assertEqual([i.sku for i in sample().items()], ["SKU-1", "SKU-2", "SKU-3"])

    def test_load_csv(self):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
            fh.write("sku,name,quantity,unit_cost\nA-1,first,5,1.50\nA-2,second,2,0.25\n")
        try:
            store = Store.load_csv(fh.name)
        finally:
            os.unlink(fh.name)
        self.assertEqual([i.sku for i in store.items()], ["A-1", "A-2"])
        self.assertEqual(store.total_value(), Decimal("8.00"))


if __name__ == "__main__":
    unittest.main()
