"""The checks of the browser audit (tests/web/test_browser_audit.py), each run on an open Playwright page and each
returning the problems it saw as sentences (an empty list: the page passes).

- overflow: nothing pushes the page sideways at this width;
- keyboard: Tab reaches every control on the page, and each one, focused, is on screen with a focus indicator
  (its outline or box-shadow differs from the unfocused one);
- axe: axe-core (vendored under tests/vendor/, see its README) finds no WCAG 2.0/2.1 A or AA violation, colour
  contrast included;
- noticeable: what a person reading the page would notice: a word broken inside a table cell, an errno or an
  exception's name where the app speaks, two statements that cannot both be true, a file tree not marking the
  open file, a #fragment landing under the sticky header, a chart with no title or no words on it.
"""

from __future__ import annotations

from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "vendor"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def overflow(page) -> list[str]:
    wide, width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    if wide <= width:
        return []
    culprit = page.evaluate(WIDEST_JS)
    return [f"the page is {wide} px wide in a {width} px window (widest: {culprit})"]


# The first (outermost) element whose right edge passes the window: what to fix when the page scrolls sideways.
WIDEST_JS = """() => {
  const clipped = el => {  // inside a box that scrolls or clips on its own, it cannot push the page
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    return false;
  };
  const found = [...document.body.querySelectorAll('*')].find(el => {
    const r = el.getBoundingClientRect();
    return r.right > innerWidth + 0.5 && r.width > 0 && !clipped(el);
  });
  return found ? found.outerHTML.slice(0, 160) : 'none found';
}"""


# Every control a visitor can operate, as the page shows it: marked with its number, its unfocused style noted.
CONTROLS_JS = """() => {
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, iframe, [tabindex]';
  const looks = el => [el, el.closest('label')].filter(Boolean).map(shown => {  // a chip's checkbox: its label
    const s = getComputedStyle(shown);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow].join(' ');
  }).join(' | ');
  const controls = [...document.querySelectorAll(selector)].filter(el =>
    !el.disabled && el.tabIndex >= 0 && !el.closest('[inert]') && el.checkVisibility({visibilityProperty: true})
    && (el.getClientRects().length > 0 || el.closest('label')?.checkVisibility()));
  // Tab stops once in a group of radio buttons (the arrows move within it): the group counts as one control.
  const stops = [], groups = new Map();
  for (const el of controls) {
    const group = el.type === 'radio' && el.name ? (el.form?.id || '') + '/' + el.name : null;
    if (group && groups.has(group)) { el.__auditNumber = groups.get(group); }
    else { el.__auditNumber = stops.length; stops.push(el.outerHTML.slice(0, 120)); if (group) groups.set(group, el.__auditNumber); }
    el.__auditUnfocused = looks(el);
  }
  window.__audit = {looks};
  return stops;
}"""

# What has the focus now: its number, whether it shows on screen, whether it looks focused.
FOCUSED_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const box = (el.closest('label.chip') || el).getBoundingClientRect();
  const onScreen = box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
    && box.top < innerHeight && box.left < innerWidth;
  return {number: el.__auditNumber ?? null, html: el.outerHTML.slice(0, 120), onScreen,
          indicated: window.__audit.looks(el) !== el.__auditUnfocused};
}"""


# Back to the top, with Tab's starting point there too (a #fragment the page landed on would otherwise be it).
TOP_JS = """() => {
  document.activeElement && document.activeElement.blur();
  document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute('tabindex');
  window.scrollTo(0, 0);
}"""


def keyboard(page) -> list[str]:
    """Tab from the top of the page to the end of it, as a keyboard user would."""
    controls = page.evaluate(CONTROLS_JS)
    page.evaluate(TOP_JS)
    problems, reached = [], set()
    for _ in range(len(controls) + 10):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused is None or focused["number"] in reached:
            break  # out of the page, or round again
        if focused["number"] is not None:
            reached.add(focused["number"])
        if not focused["onScreen"]:
            problems.append(f"focused but off screen: {focused['html']}")
        if not focused["indicated"]:
            problems.append(f"focused without a visible focus indicator: {focused['html']}")
    problems += [f"never reached by Tab: {html}" for n, html in enumerate(controls) if n not in reached]
    page.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    return problems


def axe(page) -> list[str]:
    """axe-core's WCAG A and AA rules; injected by evaluate, so it also runs on a page whose own scripts are off."""
    page.evaluate((VENDOR / "axe.min.js").read_text())
    result = page.evaluate("""tags => axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                         resultTypes: ['violations']})""", AXE_TAGS)
    problems = []
    for violation in result["violations"]:
        for node in violation["nodes"][:5]:
            summary = node.get("failureSummary", "").replace("\n", " ")
            problems.append(f"axe {violation['id']}: {node['html'][:120]} ({summary[:200]})")
    return problems


# What a person reading the page would notice, beyond the machine checks above.

# Each word of each table cell, measured: a word drawn on two lines was broken inside ("Do/mai/n").
BROKEN_WORDS_JS = """() => {
  const broken = [];
  for (const cell of [...document.querySelectorAll('main :is(td, th)')].slice(0, 400)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[\\p{L}\\p{N}]{2,}/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken.slice(0, 10);
}"""


def broken_words(page) -> list[str]:
    return [f"a word broken across lines in a table cell: {word!r}" for word in page.evaluate(BROKEN_WORDS_JS)]


# What only a program says: an errno, a traceback, an exception's class name. Looked for in what the app itself
# writes (its notes, statuses and error pages), not in a task's own text, which may well talk about ValueError.
RAW_ERROR = r"\[Errno|Traceback \(most recent|HTTPConnectionPool|Max retries exceeded|\b[A-Z]\w*(Error|Exception)\b[(:)]"
RAW_ERROR_JS = """pattern => [...document.querySelectorAll('main :is(.note, [role=status], .stage-badge, .error, .muted)')]
  .filter(el => !el.closest('pre, code, .prose, .verbatim, .task-brief'))
  .map(el => el.innerText.trim()).filter(text => new RegExp(pattern).test(text)).slice(0, 5)"""


def raw_errors(page) -> list[str]:
    return [f"raw error text shown: {text[:160]!r}" for text in page.evaluate(RAW_ERROR_JS, RAW_ERROR)]


# Statements that cannot both be true of one page: (what one part says, what another says, why they clash).
CLASHES = [
    (r"^runs here$|can run in this machine", r"(Its tasks|The tasks of this dataset|It) cannot run here",
     "says a task runs here and that it cannot"),
    (r"^Running$", r"could not be reached|not reachable", "says the Space is running and that it cannot be reached"),
]
# The page's short statements: chips, badges, notes, headings (a task's own text is left out).
STATEMENTS_JS = """() => [...document.querySelectorAll('main :is(.tag, .stage-badge, .note, h1, h2, h3, .badge, .card-kind)')]
  .filter(el => !el.closest('pre, .prose, .verbatim') && el.checkVisibility())
  .map(el => el.innerText.trim()).filter(Boolean)"""


def contradictions(page) -> list[str]:
    import re

    statements = page.evaluate(STATEMENTS_JS)
    problems = []
    for one, other, why in CLASHES:
        said = [s for s in statements if re.search(one, s)]
        denied = [s for s in statements if re.search(other, s)]
        if said and denied:
            problems.append(f"the page {why}: {said[0][:80]!r} / {denied[0][:80]!r}")
    return problems


# The file tree beside a viewer marks the file the viewer shows, and only that one.
OPEN_FILE_JS = """() => {
  const tree = document.querySelector('main .tree'), path = document.querySelector('main .viewer-path');
  if (!tree || !path) return null;
  const marked = [...tree.querySelectorAll('li.current')];
  const current = tree.querySelector('[aria-current]');
  return {shown: path.innerText.trim(), marked: marked.map(li => li.innerText.trim()),
          current: current ? current.innerText.trim() : null};
}"""


def open_file_marked(page) -> list[str]:
    seen = page.evaluate(OPEN_FILE_JS)
    if seen is None:
        return []
    leaf = seen["shown"].rstrip("/").rsplit("/", 1)[-1]
    if len(seen["marked"]) != 1 or not seen["marked"][0].startswith(leaf) or seen["current"] != leaf:
        return [f"the viewer shows {seen['shown']!r} but the tree marks {seen['marked']} (aria-current: "
                f"{seen['current']!r})"]
    return []


def open_file_marked_after_click(page) -> list[str]:
    """Open another file from the tree, as a visitor does (htmx swaps the viewer): the mark follows."""
    links = page.locator("main .tree li:not(.current) a.fname[hx-get]")
    if links.count() == 0:
        return []
    name = links.first.inner_text().strip()
    links.first.click()
    page.wait_for_function("name => document.querySelector('main .viewer-path')?.innerText.trim().endsWith(name)",
                           arg=name, timeout=20_000)
    return [f"after a click on {name!r}: {p}" for p in open_file_marked(page)]


# A link to a #fragment lands with its target in view below the sticky header, not hidden under it.
TARGET_JS = """() => {
  const id = decodeURIComponent(location.hash.slice(1)), target = id && document.getElementById(id);
  if (!target) return null;
  const header = document.querySelector('header.top, .top'), covered = header ? header.getBoundingClientRect().bottom : 0;
  const first = target.querySelector('.task-row, li, tr, h2') || target;
  return {top: target.getBoundingClientRect().top, covered, firstBottom: first.getBoundingClientRect().bottom,
          height: innerHeight, id};
}"""


def hidden_first_result(page) -> list[str]:
    seen = page.evaluate(TARGET_JS)
    if seen is None:
        return []
    if seen["top"] < seen["covered"] - 1:
        return [f"#{seen['id']} starts at {seen['top']:.0f} px, under the header (which ends at {seen['covered']:.0f})"]
    if seen["firstBottom"] > seen["height"]:
        return [f"#{seen['id']}'s first entry is below the window ({seen['firstBottom']:.0f} px of {seen['height']})"]
    return []


# Every chart says what it shows: a name (a title or label) and words on it (axis values, counts, labels); every
# drawn plot (an svg) has both its axes.
CHARTS_JS = """() => [...document.querySelectorAll('main svg[role=img], main .treemap, main .stat-group')].map(chart => {
  const name = chart.getAttribute('aria-label') || chart.querySelector('title, figcaption')?.textContent
    || chart.getAttribute('title') || '';
  const words = [...chart.querySelectorAll('text, .treemap-label, .stat-n, .bar-n, dd, td, span')]
    .map(el => el.textContent.trim()).filter(Boolean);
  const axes = chart.matches('svg') ? chart.querySelectorAll('.axis').length : null;
  return {html: chart.outerHTML.slice(0, 100), name: name.trim(), words: words.length, axes};
})"""


def unlabelled_charts(page) -> list[str]:
    problems = []
    for chart in page.evaluate(CHARTS_JS):
        if not chart["name"]:
            problems.append(f"a chart without a title: {chart['html']}")
        if not chart["words"]:
            problems.append(f"a chart with no label, value or count on it: {chart['html']}")
        if chart["axes"] is not None and chart["axes"] < 2:
            problems.append(f"a plot without both axes: {chart['html']}")
    return problems


def noticeable(page) -> list[str]:
    """The checks of what a person would notice at any width, run together on a loaded page (hidden_first_result
    is run apart: it holds only for the page as it landed, before any resize moves it)."""
    return broken_words(page) + raw_errors(page) + contradictions(page) + open_file_marked(page) + unlabelled_charts(page)
