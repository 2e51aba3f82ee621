"""The 1200×630 picture a link preview shows for an environment (Open Graph, Twitter), drawn with Pillow.

Drawn from the snapshot's card alone: the name (wrapped over at most three lines, smaller type for long names, the
last line ellipsized), the repository id, the kind, and the task, like and download counts. DejaVu Sans when the
machine has it (the Space image installs fonts-dejavu-core); otherwise Pillow's own scalable font.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from rlx.http.humanize import compact_number

WIDTH, HEIGHT = 1200, 630
MARGIN = 72
TEXT_WIDTH = WIDTH - 2 * MARGIN
NAME_SIZES = (76, 64, 54)  # tried in turn until the name fits in MAX_NAME_LINES
MAX_NAME_LINES = 3
BG, FG, SOFT, FAINT, ACCENT, ACCENT_FG = "#0d1117", "#e6edf3", "#a3adb8", "#6e7781", "#ff9d00", "#1f2328"
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF",
             "/usr/local/share/fonts")
_PIECES = re.compile(r"[^\s/_-]+[/_-]*\s*|[/_-]+\s*|\s+")  # words, each keeping the separator that follows it


@functools.lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def wrap(text: str, face, width: int, max_lines: int) -> list[str]:
    """`text` in lines no wider than `width`, broken after spaces, slashes, dashes and underscores (a word longer
    than a line is cut by characters); past `max_lines` the last line ends in an ellipsis."""
    lines, line = [], ""
    for piece in _PIECES.findall(" ".join(text.split())):
        if face.getlength(line + piece.rstrip()) <= width:
            line += piece
            continue
        if line.strip():
            lines.append(line.rstrip())
            line = ""
        for char in piece:  # a piece wider than a whole line: cut it where it must be
            if face.getlength(line + char) > width and line:
                lines.append(line.rstrip())
                line = ""
            line += char
    if line.strip():
        lines.append(line.rstrip())
    if len(lines) <= max_lines:
        return lines
    kept = lines[:max_lines]
    kept[-1] = ellipsize(kept[-1] + " " + lines[max_lines], face, width)
    return kept


def ellipsize(text: str, face, width: int) -> str:
    """`text` as it is when it fits, else cut to end in "…" within `width`."""
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text.rstrip() + "…") > width:
        text = text[:-1]
    return text.rstrip(" /_-") + "…"


def name_lines(heading: str) -> tuple[list[str], int]:
    """The name's lines and the type size they use: the largest size that fits whole, else the smallest, cut."""
    for size in NAME_SIZES:
        lines = wrap(heading, font(size, bold=True), TEXT_WIDTH, MAX_NAME_LINES)
        if not lines or not lines[-1].endswith("…"):
            return lines, size
    return lines, NAME_SIZES[-1]


def draw_preview(card: dict, kind_label: str) -> bytes:
    """The PNG for one environment's card (key, repo_type, heading, task_count, likes, downloads)."""
    suffix = " dataset" if card["repo_type"] == "dataset" else "" if "Space" in kind_label else " Space"
    tasks = card.get("task_count") or 0
    figures = [(f"{tasks:,}" if tasks < 1_000_000 else compact_number(tasks), "task" if tasks == 1 else "tasks"),
               (compact_number(card.get("likes") or 0), "likes"),
               (compact_number(card.get("downloads") or 0), "downloads")]
    if card["repo_type"] == "space" and not tasks:
        figures.pop(0)  # a Space's tasks are served live, not counted in the catalog: "0 tasks" would mislead
    return draw_card(kind_label + suffix, card["heading"] or card["key"], card["key"], figures)


def draw_card(chip: str, heading: str, subtitle: str, figures: list[tuple[str, str]]) -> bytes:
    """A 1200×630 PNG: the site's name, a chip, a wrapped heading, a subtitle, and (number, word) figures."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BG)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, WIDTH, 12), fill=ACCENT)
    pen.text((MARGIN, 56), "HF RL Explorer", font=font(30, bold=True), fill=SOFT)
    chip_font = font(28, bold=True)
    chip = ellipsize(chip, chip_font, 600)
    chip_width = int(chip_font.getlength(chip))
    pen.rounded_rectangle((MARGIN, 120, MARGIN + chip_width + 40, 170), radius=25, fill=ACCENT)
    pen.text((MARGIN + 20, 145), chip, font=chip_font, fill=ACCENT_FG, anchor="lm")

    lines, size = name_lines(heading)
    top = 200
    for line in lines:
        pen.text((MARGIN, top), line, font=font(size, bold=True), fill=FG)
        top += int(size * 1.18)
    subtitle_font = font(30)
    pen.text((MARGIN, top + 14), ellipsize(subtitle, subtitle_font, TEXT_WIDTH), font=subtitle_font, fill=SOFT)

    _figures(pen, figures)
    out = io.BytesIO()
    # 32 colours look the same on flat colours and anti-aliased text, at a third of the bytes (about 10 KB; one
    # picture per environment is kept in the store).
    image.quantize(colors=32, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _figures(pen: ImageDraw.ImageDraw, figures: list[tuple[str, str]]) -> None:
    """The bottom line: each figure a large number with a small word after it."""
    pen.line((MARGIN, HEIGHT - 132, WIDTH - MARGIN, HEIGHT - 132), fill=FAINT, width=2)
    number_font, word_font = font(48, bold=True), font(28)
    x, baseline = MARGIN, HEIGHT - 56
    for number, word in figures:
        pen.text((x, baseline), number, font=number_font, fill=FG, anchor="ls")
        x += int(number_font.getlength(number)) + 12
        pen.text((x, baseline), word, font=word_font, fill=SOFT, anchor="ls")
        x += int(word_font.getlength(word)) + 56
