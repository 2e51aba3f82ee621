"""Gradio demo: tabular Q-learning on a 6x6 gridworld."""

import random

import gradio as gr
import numpy as np
import pandas as pd

SIZE = 6
WALLS = {(1, 1), (1, 2), (3, 3), (4, 3)}
PIT, GOAL, START = (3, 4), (5, 5), (0, 0)
MOVES = [(-1, 0), (0, 1), (1, 0), (0, -1)]  # up, right, down, left
ARROWS = "↑→↓←"


def step(cell, action, slip, rng):
    if rng.random() < slip:
        action = (action + rng.choice([1, 3])) % 4
    dr, dc = MOVES[action]
    nxt = (cell[0] + dr, cell[1] + dc)
    if not (0 <= nxt[0] < SIZE and 0 <= nxt[1] < SIZE) or nxt in WALLS:
        nxt = cell
    if nxt == GOAL:
        return nxt, 10.0, True
    if nxt == PIT:
        return nxt, -10.0, True
    return nxt, -0.1, False


def train(episodes, alpha, gamma, epsilon, slip, seed=0):
    rng = random.Random(seed)
    q = np.zeros((SIZE, SIZE, 4))
    returns = []
    for _ in range(int(episodes)):
        cell, total = START, 0.0
        for _ in range(200):
            a = rng.randrange(4) if rng.random() < epsilon else int(np.argmax(q[cell]))
            nxt, reward, done = step(cell, a, slip, rng)
            target = reward if done else reward + gamma * np.max(q[nxt])
            q[cell][a] += alpha * (target - q[cell][a])
            cell, total = nxt, total + reward
            if done:
                break
        returns.append(total)
    return q, returns


def render(q):
    rows = []
    for r in range(SIZE):
        line = []
        for c in range(SIZE):
            cell = (r, c)
            line.append("█" if cell in WALLS else "G" if cell == GOAL else "X" if cell == PIT
                        else ARROWS[int(np.argmax(q[cell]))])
        rows.append(" ".join(line))
    return "\n".join(rows)


def run(episodes, alpha, gamma, epsilon, slip):
    q, returns = train(episodes, alpha, gamma, epsilon, slip)
    values = np.round(q.max(axis=2), 2)
    curve = pd.DataFrame({"episode": range(1, len(returns) + 1), "return": returns})
    return render(q), values.tolist(), curve


with gr.Blocks(title="Gridworld Q-learning") as demo:
    gr.Markdown("# Gridworld Q-learning\nTrain a tabular agent and look at the greedy policy it learns.")
    with gr.Row():
        episodes = gr.Slider(10, 2000, value=300, step=10, label="Episodes")
        alpha = gr.Slider(0.01, 1.0, value=0.3, label="Learning rate α")
        gamma = gr.Slider(0.5, 0.999, value=0.95, label="Discount γ")
        epsilon = gr.Slider(0.0, 1.0, value=0.1, label="Exploration ε")
        slip = gr.Slider(0.0, 0.5, value=0.1, label="Slip probability")
    go = gr.Button("Train")
    policy = gr.Textbox(label="Greedy policy", lines=SIZE)
    values = gr.Dataframe(label="State values")
    curve = gr.LinePlot(x="episode", y="return", label="Return per episode")
    go.click(run, [episodes, alpha, gamma, epsilon, slip], [policy, values, curve])

if __name__ == "__main__":
    demo.launch()
