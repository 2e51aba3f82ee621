"""Runs /app/backup.sh into a scratch folder and checks the copied files and the MANIFEST."""
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path("/app/data")
SCRIPT = Path("/app/backup.sh")


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def wanted(folder: Path) -> list[str]:
    names = [p.name for p in folder.iterdir()
             if p.is_file() and not p.name.startswith(".") and p.name.endswith((".txt", ".md"))]
    return sorted(names, key=lambda n: n.encode())


def check(dest: Path, names: list[str]) -> list[str]:
    problems = []
    present = sorted(p.name for p in dest.iterdir()) if dest.is_dir() else []
    if present != sorted(names + ["MANIFEST"]):
        problems.append(f"DEST holds {present}, expected {sorted(names + ['MANIFEST'])}")
    for name in names:
        if (dest / name).is_file() and (dest / name).read_bytes() != (SRC / name).read_bytes():
            problems.append(f"{name}: copy differs from the source")
    lines = [f"{hashlib.sha256((SRC / n).read_bytes()).hexdigest()}  {n}" for n in names]
    manifest = dest / "MANIFEST"
    if not manifest.is_file():
        problems.append("MANIFEST missing")
    elif manifest.read_text().splitlines() != lines:
        problems.append("MANIFEST content wrong:\n" + manifest.read_text())
    return problems


def main() -> int:
    before = snapshot(SRC)
    names = wanted(SRC)
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "nested" / "backup-2025-03-12"
        for attempt in (1, 2):
            res = subprocess.run(["bash", str(SCRIPT), str(SRC), str(dest)],
                                 capture_output=True, text=True, timeout=30)
            if res.returncode != 0:
                print(f"FAIL: run {attempt} exited {res.returncode}: {res.stderr.strip()}")
                return 1
            problems = check(dest, names)
            if problems:
                print(f"FAIL (run {attempt}):", *problems, sep="\n  ")
                return 1
    if snapshot(SRC) != before:
        print("FAIL: /app/data was modified")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
