#!/usr/bin/env bash
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
