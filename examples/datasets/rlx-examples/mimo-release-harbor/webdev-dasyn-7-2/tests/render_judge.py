"""Grades the page the agent built (/workspace/index.html) as the release's Webdev verifier does: the page is
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
