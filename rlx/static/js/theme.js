/* The remembered theme, applied before the first paint so the page never flashes the other one (loaded without
   defer, in <head>: the Content-Security-Policy allows no inline script). */
try { var t = localStorage.getItem("rlx-theme"); if (t) document.documentElement.dataset.theme = t; } catch (e) {}
