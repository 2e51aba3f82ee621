"""The checks of the browser audit (tests/test_browser_audit.py), each run on an open Playwright page and each
returning the problems it saw as sentences (an empty list: the page passes).

- overflow: nothing pushes the page sideways at this width;
- keyboard: Tab reaches every control on the page, and each one, focused, is on screen with a focus indicator
  (its outline or box-shadow differs from the unfocused one);
- axe: axe-core (vendored under tests/vendor/, see its README) finds no WCAG 2.0/2.1 A or AA violation, colour
  contrast included.
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


def keyboard(page) -> list[str]:
    """Tab from the top of the page to the end of it, as a keyboard user would."""
    controls = page.evaluate(CONTROLS_JS)
    page.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
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
