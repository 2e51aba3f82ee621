"""Reference rewrite in Python; the agent's script must match it on app.conf and on a hidden variant."""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*$")
KEY = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$")


def rewrite(text: str) -> str:
    out, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if m := SECTION.match(line):
            section = m.group(1).strip()
        elif m := KEY.match(line):
            key, value = m.groups()
            if section == "server" and key == "debug":
                line = "debug = false"
            elif section == "server" and key == "listen_port":
                line = "listen_port = 80"
            elif section == "database" and key == "host" and value == "localhost":
                line = "host = db.internal"
        out.append(line)
    return "\n".join(out) + "\n"


def same(got: str, want: str) -> bool:
    return got.rstrip("\n") == want.rstrip("\n")


def main() -> int:
    app = Path("/app")
    prod = app / "app.prod.conf"
    if not (app / "rewrite.sh").is_file() or not prod.is_file():
        print("FAIL: /app/rewrite.sh or /app/app.prod.conf is missing")
        return 1
    if not same(prod.read_text(), rewrite((app / "app.conf").read_text())):
        print("FAIL: /app/app.prod.conf is not the expected production config")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(Path(__file__).with_name("variant.conf"), Path(tmp) / "app.conf")
        res = subprocess.run(["bash", str(app / "rewrite.sh")], cwd=tmp, capture_output=True, text=True, timeout=30)
        out = Path(tmp) / "app.prod.conf"
        if res.returncode != 0 or not out.is_file():
            print(f"FAIL: rewrite.sh on another config: exit {res.returncode} {res.stderr.strip()}")
            return 1
        if not same(out.read_text(), rewrite((Path(tmp) / "app.conf").read_text())):
            print("FAIL: rewrite.sh gives the wrong result on another config:\n" + out.read_text())
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
