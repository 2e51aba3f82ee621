"""Constructors for each block kind, and each block as plain text (what MCP and search read).

Shapes of `data`, by kind:
  kv        [[label, value(, key)], ...]                value: text, number, bool or list of text; key: the
                                                        raw metadata key the label stands for (key_labels.py)
  stats     [{"label", "items": [[name, count], ...]}]  counts drawn as bars
  markdown  {"text"}                                    rendered, then sanitized (cards, notes we write)
  prompt    {"text"}                                    the agent's own text, shown verbatim; rendering is opt-in
  code      {"text", "language", "path"}                highlighted, with line numbers
  note      {"text", "tone"}                            tone: info, warn, bad, ok
  value     {"value"}                                   any JSON value, shown pretty
  messages  [{"role", "content"}]                       a chat, each turn verbatim with its role
  steps     [{"title", "blocks": [Block]}]              a multi-step task, one part per step
  links     [{"label", "href", "hint"}]
  disclose  {"summary", "blocks": [Block]}              closed until opened
  files     {"entries": [{"path", "type", "size", "withheld"}]}
  treemap   {"cells": [{"label", "n", "href", "hint", "x", "y", "w", "h", "inner": [{"label", "n", x, y, w, h}]}]}
                                                        areas by count, laid out here (percent of the box)
"""

from __future__ import annotations

import json

from rlx.adapters.contract import Block


# Values a dataset writes where it has none ("author_email = unknown"): a row saying so tells a reader nothing.
PLACEHOLDERS = frozenset({"", "unknown", "n/a", "tbd"})


def kv(pairs, title=None) -> Block:
    """Rows (label, value) or (label, value, key); rows without a value (or with a placeholder) are left out."""
    return Block("kv", [[str(label), v, *key[:1]] for label, v, *key in pairs if _has_value(v)], title)


def _has_value(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in PLACEHOLDERS
    return value not in (None, [], {})


def stats(groups, title=None) -> Block:
    """Groups without items are dropped: a heading over no bars tells a reader nothing."""
    return Block("stats", [g for g in groups if g.get("items")], title)


def markdown(text: str, title=None) -> Block:
    return Block("markdown", {"text": text}, title)


def prompt(text: str, title=None) -> Block:
    """Text the agent reads: drawn character for character, because markdown rendering drops `<file>`,
    backslashes, fences and diff lines that the agent does see."""
    return Block("prompt", {"text": text}, title)


def code(text: str, language: str = "text", path: str | None = None, title=None) -> Block:
    return Block("code", {"text": text, "language": language, "path": path}, title)


def note(text: str, tone: str = "info", title=None) -> Block:
    return Block("note", {"text": text, "tone": tone}, title)


def value(data, title=None) -> Block:
    return Block("value", {"value": data}, title)


def messages(items, title=None) -> Block:
    return Block("messages", [{"role": str(m.get("role", "")), "content": m.get("content", "")} for m in items], title)


def steps(parts, title=None) -> Block:
    return Block("steps", parts, title)


def links(items, title=None) -> Block:
    return Block("links", items, title)


def disclose(summary: str, inner: list[Block], title=None) -> Block:
    return Block("disclose", {"summary": summary, "blocks": inner}, title)


def files(entries, title=None) -> Block:
    return Block("files", {"entries": entries}, title)


def treemap(items, title=None) -> Block:
    """`items`: [{"label", "n", "href", "hint", "parts": [[label, n], ...]}], largest first; each item's parts
    fill its own cell the same way."""
    from rlx.adapters.treemap import layout

    items = sorted(items, key=lambda item: -item["n"])
    cells = []
    for item, (x, y, w, h) in zip(items, layout([i["n"] for i in items])):
        parts = sorted(item.get("parts") or [], key=lambda p: -p[1])
        inner = [{"label": str(label), "n": n, "x": px, "y": py, "w": pw, "h": ph}
                 for (label, n), (px, py, pw, ph) in zip(parts, layout([p[1] for p in parts]))]
        cells.append({"label": item["label"], "n": item["n"], "href": item.get("href"), "hint": item.get("hint"),
                      "x": x, "y": y, "w": w, "h": h, "inner": inner})
    return Block("treemap", {"cells": cells}, title)


def to_text(block: Block) -> str:
    """A block as plain text: the same content the page shows, for MCP clients and search."""
    head = f"## {block.title}\n" if block.title else ""
    data = block.data
    if block.kind == "kv":
        body = "\n".join(f"- {k}{f' ({key[0]})' if key else ''}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
                         for k, v, *key in data)
    elif block.kind == "stats":
        body = "\n".join(
            f"{group['label']}: " + ", ".join(f"{name} ({count})" for name, count in group["items"]) for group in data
        )
    elif block.kind in ("markdown", "prompt", "note"):
        body = data["text"]
    elif block.kind == "code":
        fence = "```"
        body = f"{data.get('path') or ''}\n{fence}{data.get('language') or ''}\n{data['text']}\n{fence}".lstrip("\n")
    elif block.kind == "value":
        body = json.dumps(data["value"], indent=2, ensure_ascii=False, default=str)
    elif block.kind == "messages":
        body = "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in data)
    elif block.kind == "steps":
        body = "\n\n".join(f"### {part['title']}\n" + "\n\n".join(to_text(b) for b in part["blocks"]) for part in data)
    elif block.kind == "links":
        body = "\n".join(f"- {item['label']}: {item['href']}" for item in data)
    elif block.kind == "disclose":
        body = f"{data['summary']}\n" + "\n\n".join(to_text(b) for b in data["blocks"])
    elif block.kind == "files":
        body = "\n".join(
            f"- {e['path']}{'/' if e['type'] == 'directory' else ''}{' (withheld)' if e.get('withheld') else ''}"
            for e in data["entries"]
        )
    elif block.kind == "treemap":
        body = "\n".join(f"- {cell['label']}: {cell['n']}" + (" (" + ", ".join(f"{p['label']} {p['n']}"
                                                                          for p in cell["inner"]) + ")"
                                                              if cell["inner"] else "") for cell in data["cells"])
    else:  # pragma: no cover - Block refuses unknown kinds
        body = str(data)
    return head + body
