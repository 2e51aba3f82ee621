"""Behavioural checks of /app/paginate.py; every check must pass for reward 1."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("paginate", "/app/paginate.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

failures = []


def check(label, got, want):
    if got != want:
        failures.append(f"{label}: got {got!r}, expected {want!r}")


def raises(label, fn, *args):
    try:
        fn(*args)
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001
        failures.append(f"{label}: raised {type(exc).__name__}, expected ValueError")
        return
    failures.append(f"{label}: did not raise ValueError")


items = list(range(1, 24))  # 23 items
check("first page", mod.paginate(items, 1, 10), list(range(1, 11)))
check("second page", mod.paginate(items, 2, 10), list(range(11, 21)))
check("last partial page", mod.paginate(items, 3, 10), [21, 22, 23])
check("page past the end", mod.paginate(items, 4, 10), [])
check("tuple input", mod.paginate(tuple("abcde"), 2, 2), ["c", "d"])
raises("page 0", mod.paginate, items, 0, 10)
raises("negative page", mod.paginate, items, -1, 10)
raises("per_page 0", mod.paginate, items, 1, 0)

for total, per_page, want in [(0, 10, 0), (1, 10, 1), (10, 10, 1), (11, 10, 2), (23, 10, 3), (100, 25, 4)]:
    check(f"page_count({total}, {per_page})", mod.page_count(total, per_page), want)
raises("page_count per_page 0", mod.page_count, 5, 0)

for args, want in [
    ((1, 10, 5), [1, 2, 3, 4, 5]),
    ((5, 10, 5), [3, 4, 5, 6, 7]),
    ((10, 10, 5), [6, 7, 8, 9, 10]),
    ((9, 10, 5), [6, 7, 8, 9, 10]),
    ((2, 3, 5), [1, 2, 3]),
    ((4, 8, 4), [2, 3, 4, 5]),
    ((1, 1, 5), [1]),
    ((1, 0, 5), []),
]:
    check(f"page_window{args}", mod.page_window(*args), want)

if failures:
    print("FAIL", *failures, sep="\n  ")
    sys.exit(1)
print("PASS")
