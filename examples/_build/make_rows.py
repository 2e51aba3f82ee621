"""Writes the two row datasets of the bundled catalog. Deterministic: same output on every run.

    python examples/_build/make_rows.py            # rewrite the committed files
    python examples/_build/make_rows.py --out DIR  # write them under DIR instead (tests compare the two)

- rlx-examples/math-word-problems: a Verifiers-style table (`id`, `prompt` as chat messages, gold `answer`,
  `info` struct, `task`) in data/train-00000-of-00001.parquet;
- rlx-examples/countdown-verl: verl-style rows (`data_source`, `prompt`, `ability`,
  `reward_model: {style, ground_truth}`, `extra_info`) in data/train.jsonl.

Only the standard library and pyarrow are needed.
"""

from __future__ import annotations

import argparse
import json
import random
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "datasets" / "rlx-examples"
SYSTEM_PROMPT = (
    "You are a careful math tutor. Solve the problem step by step, then give only the final "
    "answer inside \\boxed{}."
)


# ---------------------------------------------------------------------------------------------------------------
# math word problems: each template returns (question, answer, topic, difficulty)


def _money(x: Fraction) -> str:
    return f"{float(x):.2f}"


def t_bakery(r: random.Random):
    trays, per_tray, sold = r.randint(3, 9), r.choice([12, 16, 18, 24]), r.randint(10, 40)
    q = (f"A bakery bakes {trays} trays of rolls with {per_tray} rolls on each tray. "
         f"By noon it has sold {sold} rolls. How many rolls are left?")
    return q, str(trays * per_tray - sold), "arithmetic", "easy"


def t_discount(r: random.Random):
    price, pct = r.choice([40, 60, 80, 120, 250]), r.choice([10, 15, 20, 25, 30])
    tax = r.choice([5, 8, 10])
    final = Fraction(price) * (100 - pct) / 100 * (100 + tax) / 100
    q = (f"A jacket costs ${price}. It is on sale for {pct}% off, and then sales tax of {tax}% is added "
         f"to the sale price. What is the final price in dollars?")
    return q, _money(final), "percentages", "medium"


def t_train(r: random.Random):
    speed, hours, minutes = r.choice([60, 72, 80, 90]), r.randint(1, 4), r.choice([15, 30, 45])
    dist = Fraction(speed) * (hours + Fraction(minutes, 60))
    q = (f"A train travels at a constant {speed} km/h for {hours} hours and {minutes} minutes. "
         f"How many kilometres does it cover?")
    return q, str(int(dist)) if dist.denominator == 1 else f"{float(dist):g}", "rates", "easy"


def t_pipes(r: random.Random):
    a, b = r.choice([(3, 6), (4, 12), (6, 12), (10, 15), (12, 24), (2, 3)])
    together = Fraction(a * b, a + b)
    q = (f"One pipe fills a tank in {a} hours and a second pipe fills it in {b} hours. "
         f"How many hours do they take to fill the empty tank together?")
    return q, str(together) if together.denominator == 1 else f"{float(together):g}", "rates", "hard"


def t_rectangle(r: random.Random):
    w = r.randint(4, 15)
    l = w + r.randint(2, 10)
    q = (f"A rectangular garden is {l} m long and {w} m wide. A path 1 m wide runs all the way around "
         f"the outside of the garden. What is the area of the path in square metres?")
    return q, str((l + 2) * (w + 2) - l * w), "geometry", "medium"


def t_ratio(r: random.Random):
    a, b = r.choice([(2, 3), (3, 5), (4, 7), (1, 4), (5, 6)])
    k = r.randint(3, 12)
    q = (f"Red and blue marbles in a jar are in the ratio {a}:{b}. There are {k * (a + b)} marbles in all. "
         f"How many more blue marbles than red marbles are there?")
    return q, str(k * (b - a)), "ratios", "medium"


def t_fraction(r: random.Random):
    total = r.choice([120, 180, 240, 360])
    f1, f2 = r.choice([(Fraction(1, 3), Fraction(1, 4)), (Fraction(1, 2), Fraction(1, 3)),
                       (Fraction(2, 5), Fraction(1, 6)), (Fraction(1, 4), Fraction(2, 3))])
    left = total - total * f1
    left -= left * f2
    q = (f"Maya had ${total}. She spent {f1} of it on books and then {f2} of what remained on lunch. "
         f"How many dollars does she have left?")
    return q, str(int(left)), "fractions", "medium"


def t_clock(r: random.Random):
    start_h, start_m = r.randint(7, 11), r.choice([5, 20, 35, 50])
    dur = r.randint(95, 260)
    end = start_h * 60 + start_m + dur
    q = (f"A meeting starts at {start_h}:{start_m:02d} a.m. and lasts {dur} minutes. At what time does it end? "
         f"Answer in 24-hour HH:MM format.")
    return q, f"{end // 60:02d}:{end % 60:02d}", "time", "easy"


def t_average(r: random.Random):
    scores = [r.randint(60, 95) for _ in range(4)]
    need = r.randint(70, 100)
    need -= (sum(scores) + need) % 5  # a whole-number average
    target = (sum(scores) + need) // 5
    q = (f"Sam's first four test scores are {', '.join(map(str, scores))}. What score does Sam need on the "
         f"fifth test for the average of all five to be exactly {target}?")
    return q, str(need), "statistics", "medium"


def t_interest(r: random.Random):
    principal, rate, years = r.choice([1000, 2000, 5000]), r.choice([2, 4, 5, 10]), r.choice([2, 3])
    amount = Fraction(principal) * Fraction(100 + rate, 100) ** years
    q = (f"${principal} is deposited at {rate}% interest per year, compounded yearly. How much is in the "
         f"account after {years} years, in dollars rounded to the cent?")
    return q, _money(amount), "percentages", "hard"


TEMPLATES = [t_bakery, t_discount, t_train, t_pipes, t_rectangle, t_ratio, t_fraction, t_clock, t_average,
             t_interest]


def math_rows(seed: int = 2025, per_template: int = 4) -> list[dict]:
    r = random.Random(seed)
    rows = []
    for round_ in range(per_template):
        for template in TEMPLATES:
            question, answer, topic, difficulty = template(r)
            rows.append({
                "id": f"mwp-{len(rows) + 1:04d}",
                "prompt": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}],
                "answer": answer,
                "info": {"difficulty": difficulty, "topic": topic},
                "task": "math-word-problems",
            })
    return rows


MATH_SCHEMA = pa.schema([
    ("id", pa.string()),
    ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
    ("answer", pa.string()),
    ("info", pa.struct([("difficulty", pa.string()), ("topic", pa.string())])),
    ("task", pa.string()),
])


# ---------------------------------------------------------------------------------------------------------------
# countdown (verl): reach the target with each number used once


def countdown_rows(seed: int = 7, n: int = 15) -> list[dict]:
    r = random.Random(seed)
    rows = []
    while len(rows) < n:
        numbers = [r.randint(1, 25) for _ in range(r.choice([3, 4]))] + [r.choice([25, 50, 75, 100])]
        r.shuffle(numbers)
        expr = str(numbers[0])
        for num in numbers[1:]:
            op = r.choice(["+", "-", "*"])
            if op == "*" and ("+" in expr or "-" in expr):
                expr = f"({expr}) * {num}"
            else:
                expr = f"{expr} {op} {num}"
        target = eval(expr, {"__builtins__": {}})  # noqa: S307 (our own arithmetic)
        if not 10 <= target <= 999:
            continue
        prompt = (
            f"Using the numbers {numbers}, create an equation that equals {target}. You can use basic arithmetic "
            "operations (+, -, *, /) and each number exactly once. Show your work in <think> </think> tags, "
            "and return the final equation in <answer> </answer> tags, for example <answer> (1 + 2) / 3 </answer>."
        )
        rows.append({
            "data_source": "rlx-examples/countdown",
            "prompt": [{"role": "user", "content": prompt}],
            "ability": "math",
            "reward_model": {"style": "rule", "ground_truth": {"target": target, "numbers": numbers}},
            "extra_info": {"split": "train", "index": len(rows), "reference": expr},
        })
    return rows


# ---------------------------------------------------------------------------------------------------------------


def write_all(out: Path) -> list[Path]:
    math_path = out / "math-word-problems" / "data" / "train-00000-of-00001.parquet"
    math_path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(math_rows(), schema=MATH_SCHEMA)
    pq.write_table(table, math_path, compression="snappy", row_group_size=1000)

    verl_path = out / "countdown-verl" / "data" / "train.jsonl"
    verl_path.parent.mkdir(parents=True, exist_ok=True)
    with verl_path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in countdown_rows():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return [math_path, verl_path]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder holding <dataset>/data/...")
    args = parser.parse_args()
    for path in write_all(args.out):
        print(path)


if __name__ == "__main__":
    main()
