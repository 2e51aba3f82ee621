"""Grades /workspace/out/unpaid.md against the release's rubric (rubric.json, from its verifier_meta.json), as its
General verifier does: the code check here, each judged check one call to the judge model (RLX_JUDGE_URL, an
OpenAI-compatible chat-completions API reached inside the sandbox) with the release's judge prompt, scored 0 or 1;
reward = sum(weight * score) / sum(weight). A judge that cannot be reached, or answers without a score, leaves no
reward: the run is not scored, never 0."""
import json
import os
import sys
import urllib.request

DELIVERABLE = "/workspace/out/unpaid.md"
EVIDENCE_LIMIT = 20000  # characters of the deliverable a judge reads, as in the release


def judged(check, evidence, rubric):
    question = (f"Checkpoint {check['id']}: {check['question']}\nWhat passes: {check['pass_anchor']}\n\n"
                f"Deliverable (unpaid.md):\n{evidence}")
    body = {"model": os.environ["RLX_JUDGE_MODEL"], "temperature": 0,
            "messages": [{"role": "system", "content": rubric["judge_prompt"]},
                         {"role": "user", "content": question}]}
    request = urllib.request.Request(os.environ["RLX_JUDGE_URL"].rstrip("/") + "/chat/completions",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        text = json.load(answer)["choices"][0]["message"]["content"]
    verdict = json.loads(text[text.find("{"):text.rfind("}") + 1])["results"][check["id"]]
    if verdict["score"] not in (0, 1):
        raise ValueError(f"a score of {verdict['score']!r}")
    return verdict["score"], str(verdict.get("why", ""))[:25]


def main():
    rubric = json.load(open("/tests/rubric.json"))
    written = os.path.isfile(DELIVERABLE) and os.path.getsize(DELIVERABLE) > 0
    evidence = open(DELIVERABLE, errors="replace").read()[:EVIDENCE_LIMIT] if written else ""
    total = earned = 0
    for check in rubric["items"]:
        if check["method"] == "code":
            score, why = (1, "written") if written else (0, "not written")
        elif not written:
            score, why = 0, "evidence not extracted"
        else:
            try:
                score, why = judged(check, evidence, rubric)
            except Exception as exc:
                print(f"{check['id']}: the judge gave no score ({type(exc).__name__}), so the run is not scored")
                sys.exit(1)
        print(f"{check['id']} ({check['method']}, weight {check['weight']}): {score} {why}")
        total += check["weight"]
        earned += check["weight"] * score
    with open("/logs/verifier/reward.txt", "w") as out:
        out.write(f"{earned / total:.4f}\n")


main()
