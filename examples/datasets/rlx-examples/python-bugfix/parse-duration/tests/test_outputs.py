"""Spec checks for parse_duration / format_duration; all must pass."""
import importlib.util
import random
import sys

spec = importlib.util.spec_from_file_location("durations", "/app/durations.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

failures = []
VALID = {
    "45s": 45, "2d": 172800, "1h30m": 5400, "1h 5m 3s": 3903, "  10M ": 600, "1H30M": 5400,
    "90": 90, "0": 0, "1.5h": 5400, "0.25m": 15, "1d1h1m1s": 90061, "3m 0s": 180, "2.5d": 216000,
}
INVALID = ["", "   ", "5x", "h", "1h1h", "5m1h", "-5s", "0.5s", "1.2.3h", "1h-30m", "1 h", "m30", "1h30",
           "1e3s", "abc", "10ss"]
FORMATS = {0: "0s", 1: "1s", 59: "59s", 60: "1m", 3600: "1h", 5400: "1h30m", 90061: "1d1h1m1s",
           86400: "1d", 172805: "2d5s", 3601: "1h1s"}

for text, want in VALID.items():
    try:
        got = mod.parse_duration(text)
        if got != want or not isinstance(got, int):
            failures.append(f"parse_duration({text!r}) = {got!r}, expected {want}")
    except Exception as exc:  # noqa: BLE001
        failures.append(f"parse_duration({text!r}) raised {type(exc).__name__}: {exc}")
for text in INVALID:
    try:
        got = mod.parse_duration(text)
        failures.append(f"parse_duration({text!r}) = {got!r}, expected ValueError")
    except ValueError:
        pass
    except Exception as exc:  # noqa: BLE001
        failures.append(f"parse_duration({text!r}) raised {type(exc).__name__}, expected ValueError")
for seconds, want in FORMATS.items():
    try:
        got = mod.format_duration(seconds)
        if got != want:
            failures.append(f"format_duration({seconds}) = {got!r}, expected {want!r}")
    except Exception as exc:  # noqa: BLE001
        failures.append(f"format_duration({seconds}) raised {type(exc).__name__}: {exc}")
try:
    mod.format_duration(-1)
    failures.append("format_duration(-1) did not raise ValueError")
except ValueError:
    pass
except Exception as exc:  # noqa: BLE001
    failures.append(f"format_duration(-1) raised {type(exc).__name__}")
rng = random.Random(1234)
for _ in range(300):
    n = rng.choice([rng.randrange(0, 100), rng.randrange(0, 10**7)])
    try:
        if mod.parse_duration(mod.format_duration(n)) != n:
            failures.append(f"round trip failed for {n}")
            break
    except Exception as exc:  # noqa: BLE001
        failures.append(f"round trip for {n} raised {type(exc).__name__}")
        break

if failures:
    print("FAIL", *failures[:20], sep="\n  ")
    sys.exit(1)
print("PASS")
