"""The Webdev task of the MiMo-style release's Harbor twin: its verifier, test script and reference page.

Kept apart from make_mimo_release.py (which writes them into the twin) because the verifier is a program of its
own: it renders the page the agent built in headless Chromium and asks a vision judge to score the screenshot."""

WEBDEV_JUDGE = r'''"""Grades the page the agent built (/workspace/index.html) as the release's Webdev verifier does: the page is
rendered in headless Chromium, and one call to a vision judge (RLX_JUDGE_URL, an OpenAI-compatible chat-completions
API reached inside the sandbox) reads the screenshot beside the brief and gives seven scores from 0 to 1;
reward = mean(visual, brief fulfilment, asset quality), where visual is the mean of the five visual criteria.
No page, or an empty one, is a blank page: 0, without a call. A page Chromium cannot render, or a judge that gives
no scores, leaves no reward: the run is not scored, never 0."""
import base64
import json
import os
import shutil
import subprocess
import sys
import urllib.request

PAGE = "/workspace/index.html"
SHOT = "/logs/verifier/screenshot.png"
WIDTH, HEIGHT = 1280, 2400  # a tall window stands in for the release's full-page capture
BRIEF_LIMIT = 1500  # characters of the brief the judge reads, as in the release
VISUAL = ("layout_integrity", "typography", "colour", "whitespace", "content_richness")
CRITERIA = VISUAL + ("brief_fulfilment", "premium_assets")
JUDGE_PROMPT = """You grade a web page from its screenshot against the brief it was built for.
Score each criterion on its own, from 0 to 1, in five bands: 0-0.2 broken or absent, 0.2-0.4 poor,
0.4-0.6 adequate, 0.6-0.8 good, 0.8-1.0 excellent.
- layout_integrity: nothing overlaps, overflows or is cut off; sections align.
- typography: readable sizes, a clear hierarchy, consistent fonts.
- colour: a coherent palette with enough contrast.
- whitespace: spacing that groups related things and lets the page breathe.
- content_richness: real, specific content rather than placeholders.
- brief_fulfilment: every part the brief asks for is there and works as asked.
- premium_assets: photographs, illustrations or icons of good quality; below 0.6 when the page has none.
A blank page scores 0 on every criterion.
Answer with JSON only: {"scores": {"layout_integrity": 0.0, ...}} naming all seven criteria."""


def render():
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                   None)
    if browser is None:
        raise RuntimeError("no Chromium in the sandbox")
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--hide-scrollbars", "--user-data-dir=/tmp/webdev-profile",
                           f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={SHOT}", "file://" + PAGE],
                          timeout=180, capture_output=True, text=True, env={**os.environ, "HOME": "/tmp"})
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        raise RuntimeError(f"Chromium exited {done.returncode}: {said[-1][:300] if said else 'nothing said'}")
    with open(SHOT, "rb") as shot:
        image = shot.read()
    if not image.startswith(b"\x89PNG"):
        raise RuntimeError("Chromium wrote no screenshot")
    return image


def judged(brief, image):
    picture = "data:image/png;base64," + base64.b64encode(image).decode()
    body = {"model": os.environ["RLX_JUDGE_MODEL"], "temperature": 0,
            "messages": [{"role": "system", "content": JUDGE_PROMPT},
                         {"role": "user", "content": [
                             {"type": "text", "text": f"The brief:\n{brief[:BRIEF_LIMIT]}"},
                             {"type": "image_url", "image_url": {"url": picture}}]}]}
    request = urllib.request.Request(os.environ["RLX_JUDGE_URL"].rstrip("/") + "/chat/completions",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        text = json.load(answer)["choices"][0]["message"]["content"]
    scores = json.loads(text[text.find("{"):text.rfind("}") + 1])["scores"]
    for name in CRITERIA:
        if not isinstance(scores.get(name), (int, float)) or not 0 <= scores[name] <= 1:
            raise ValueError(f"{name}: a score of {scores.get(name)!r}")
    return {name: float(scores[name]) for name in CRITERIA}


def main():
    brief = open("/tests/brief.md").read().strip()
    built = os.path.isfile(PAGE) and open(PAGE, errors="replace").read().strip() != ""
    if not built:
        print("blank page: /workspace/index.html is missing or empty, so every criterion scores 0")
        reward = 0.0
    else:
        try:
            scores = judged(brief, render())
        except Exception as exc:
            print(f"no score: {type(exc).__name__}: {str(exc)[:200]}, so the run is not scored")
            sys.exit(1)
        for name in CRITERIA:
            print(f"{name}: {scores[name]:.2f}")
        visual = sum(scores[n] for n in VISUAL) / len(VISUAL)
        reward = (visual + scores["brief_fulfilment"] + scores["premium_assets"]) / 3
        print(f"visual {visual:.4f}, brief {scores['brief_fulfilment']:.2f}, assets {scores['premium_assets']:.2f}")
    with open("/logs/verifier/reward.txt", "w") as out:
        out.write(f"{reward:.4f}\n")


main()
'''

WEBDEV_TEST = """#!/usr/bin/env bash
# Converted from the release's Webdev verifier: the page rendered in a browser, its screenshot graded by a vision judge.
mkdir -p /logs/verifier
exec /usr/bin/python3 /tests/render_judge.py
"""

WEBDEV_SOLUTION = r'''#!/usr/bin/env bash
# Reference page (ZX-ANSWER-4904): the landing page the brief asks for, in plain HTML and CSS.
set -euo pipefail
cat > /workspace/index.html <<'HTML'
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Penny: budgeting for students</title>
<style>
  body { margin: 0; font: 18px/1.5 system-ui, sans-serif; color: #1d2433; background: #f7f8fb; }
  header, section { max-width: 960px; margin: 0 auto; padding: 48px 24px; }
  h1 { font-size: 48px; margin: 0 0 12px; } h2 { font-size: 30px; }
  .tiers { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; }
  .tier, blockquote, form { background: #fff; border: 1px solid #dde2ec; border-radius: 12px; padding: 20px; }
  .price { font-size: 32px; font-weight: 700; color: #2f6fed; }
  input, button { font: inherit; padding: 10px 14px; border-radius: 8px; border: 1px solid #b8c1d6; }
  button { background: #2f6fed; color: #fff; border: 0; }
</style></head>
<body>
<header><h1>Penny</h1><p>Know where your student loan goes, week by week.</p></header>
<section><h2>Pricing</h2><div class="tiers">
  <div class="tier"><h3>Free</h3><p class="price">£0</p><p>One account, weekly summary.</p></div>
  <div class="tier"><h3>Plus</h3><p class="price">£2</p><p>Every account, bill reminders.</p></div>
  <div class="tier"><h3>Flat share</h3><p class="price">£5</p><p>Split rent and bills with housemates.</p></div>
</div></section>
<section><h2>What students say</h2>
  <blockquote>“I stopped running out of money in week three.” — Aisha, Leeds</blockquote>
  <blockquote>“Splitting the energy bill took one tap.” — Tom, Glasgow</blockquote></section>
<section><h2>Sign up</h2><form><label>Email <input type="email" name="email"></label> <button>Start free</button></form></section>
</body></html>
HTML
'''
