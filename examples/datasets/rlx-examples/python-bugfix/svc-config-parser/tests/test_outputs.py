"""Checks confparse.parse on the example file, on typed values, and on error reporting."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("confparse", "/app/confparse.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
failures = []

WORKER = {
    "name": "export-worker", "enabled": True,
    "schedule": {"cron": "0 3 * * *", "timeout": 5400, "jitter_ratio": 0.15},
    "db": {"dsn": "postgres://export@db.internal:5432/orders", "pool": 4,
           "replica": {"dsn": "postgres://export@replica.internal:5432/orders", "read_only": True}},
    "notify": {"email": "ops@example.com", "subject": 'Export "orders" finished\tOK'},
}
VALID = [
    ("", {}),
    ("# only a comment\n\n   \n", {}),
    ("a=1\nb = -2\nc = 3.50\nd = -0.5", {"a": 1, "b": -2, "c": 3.5, "d": -0.5}),
    ("t = TRUE\nf = Off\ny = yes\nn = No", {"t": True, "f": False, "y": True, "n": False}),
    ('s = "a \\\\ b \\n c"  # note', {"s": "a \\ b \n c"}),
    ('s = "# not a comment"', {"s": "# not a comment"}),
    ("url = http://x/#frag   # comment", {"url": "http://x/#frag"}),
    ("v = 1.2.3\nw = 12abc\nx = \ny = 007", {"v": "1.2.3", "w": "12abc", "x": "", "y": 7}),
    ("[a]\nx = 1\n[b]\ny = 2\n[a]\nz = 3", {"a": {"x": 1, "z": 3}, "b": {"y": 2}}),
    ("[a.b.c]\nk = v\n[a]\nm = 1", {"a": {"b": {"c": {"k": "v"}}, "m": 1}}),
    ("top = 1\n[ spaced . name ]\nk-1 = x_y", {"top": 1, "spaced": {"name": {"k-1": "x_y"}}}),
]
INVALID = [
    ("a = 1\na = 2", 2),
    ("[s]\nx = 1\n\n[s]\nx = 2", 5),
    ("ok = 1\nthis line has no equals", 2),
    ('q = "unterminated', 1),
    ('q = "bad \\q escape"', 1),
    ('q = "x" trailing', 1),
    ("[]\n", 1),
    ("[a\nb = 1", 1),
    ("a = 1\n[a]\nb = 2", 2),
    ("[a.b]\nx = 1\n[a]\nb = 2", 4),
    ("[bad name!]\n", 1),
    ("= 5", 1),
]

try:
    got = mod.load("/app/examples/worker.svc")
    if got != WORKER:
        failures.append(f"worker.svc: got {got!r}")
except Exception as exc:  # noqa: BLE001
    failures.append(f"worker.svc raised {exc!r}")
for text, want in VALID:
    try:
        got = mod.parse(text)
        if got != want or any(type(got.get(k)) is not type(v) for k, v in want.items()):
            failures.append(f"parse({text!r}) = {got!r}, expected {want!r}")
    except Exception as exc:  # noqa: BLE001
        failures.append(f"parse({text!r}) raised {exc!r}")
for text, line in INVALID:
    try:
        got = mod.parse(text)
        failures.append(f"parse({text!r}) = {got!r}, expected ValueError at line {line}")
    except ValueError as exc:
        if f"line {line}" not in str(exc):
            failures.append(f"parse({text!r}): message {str(exc)!r} does not mention 'line {line}'")
    except Exception as exc:  # noqa: BLE001
        failures.append(f"parse({text!r}) raised {exc!r}, expected ValueError")

if failures:
    print("FAIL", *failures, sep="\n  ")
    sys.exit(1)
print("PASS")
