"""Replays operation sequences on lru.LRUCache and on a list-based model; every observable must agree."""
import importlib.util
import random
import sys

spec = importlib.util.spec_from_file_location("lru", "/app/lru.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)


class Model:
    def __init__(self, capacity):
        self.capacity, self.order, self.values = capacity, [], {}
        self.hits = self.misses = self.evictions = 0

    def touch(self, key):
        self.order.remove(key)
        self.order.append(key)

    def get(self, key, default=None):
        if key in self.values:
            self.hits += 1
            self.touch(key)
            return self.values[key]
        self.misses += 1
        return default

    def put(self, key, value):
        if self.capacity == 0:
            return
        if key in self.values:
            self.values[key] = value
            self.touch(key)
            return
        if len(self.order) >= self.capacity:
            del self.values[self.order.pop(0)]
            self.evictions += 1
        self.order.append(key)
        self.values[key] = value


def observe(obj):
    return (list(obj.keys()) if hasattr(obj, "_data") else list(obj.order), obj.hits, obj.misses, obj.evictions)


def replay(capacity, ops):
    real, model = mod.LRUCache(capacity), Model(capacity)
    for step, (op, key, value) in enumerate(ops):
        try:
            got = real.get(key, "?") if op == "get" else real.put(key, value)
        except Exception as exc:  # noqa: BLE001
            return f"capacity {capacity}, step {step} {op}({key!r}) raised {exc!r}"
        want = model.get(key, "?") if op == "get" else model.put(key, value)
        if got != want or observe(real) != observe(model) or len(real) != len(model.order):
            return f"capacity {capacity}, step {step} {op}({key!r}): got {got!r} {observe(real)}, want {want!r} {observe(model)}"
        if (key in real) != (key in model.values):
            return f"capacity {capacity}: `in` disagrees for {key!r}"
    return None


scripted = [("put", "a", 1), ("put", "b", 2), ("get", "a", None), ("put", "c", 3), ("get", "b", None),
            ("put", "a", 10), ("put", "d", 4), ("get", "a", None), ("get", "c", None)]
problems = [p for p in [replay(2, scripted), replay(0, scripted), replay(1, scripted)] if p]
rng = random.Random(20250314)
for trial in range(200):
    capacity = rng.choice([1, 2, 3, 5, 8])
    ops = [(rng.choice(["get", "put", "put"]), rng.randrange(12), rng.randrange(1000)) for _ in range(60)]
    problem = replay(capacity, ops)
    if problem:
        problems.append(problem)
        break
if problems:
    print("FAIL", *problems, sep="\n  ")
    sys.exit(1)
print("PASS")
