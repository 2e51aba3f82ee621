/* The theme toggle: follows the system until the visitor picks one, then remembers it. */
(function () {
  var root = document.documentElement;
  var button = document.querySelector("[data-theme-toggle]");
  if (!button) return;
  button.hidden = false;
  function current() {
    return root.dataset.theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  }
  button.addEventListener("click", function () {
    var next = current() === "dark" ? "light" : "dark";
    root.dataset.theme = next;
    try { localStorage.setItem("rlx-theme", next); } catch (e) {}
  });
})();

/* Line ranges in the file viewer: #L10-L20 selects lines 10 to 20; shift-click on a line number extends. */
(function () {
  function lines(from, to) {
    document.querySelectorAll(".code .line.selected").forEach(function (el) { el.classList.remove("selected"); });
    var first = null;
    for (var n = Math.min(from, to); n <= Math.max(from, to); n++) {
      var el = document.getElementById("L" + n);
      if (el) { el.classList.add("selected"); first = first || el; }
    }
    return first;
  }
  function apply() {
    var m = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
    if (!m) return;
    var first = lines(+m[1], +(m[2] || m[1]));
    if (first) first.scrollIntoView({ block: "center" });
  }
  var anchor = null;
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest && ev.target.closest(".code a.ln");
    if (!link) return;
    var n = +link.getAttribute("href").slice(2);
    if (ev.shiftKey && anchor) {
      ev.preventDefault();
      history.replaceState(null, "", "#L" + Math.min(anchor, n) + "-L" + Math.max(anchor, n));
      apply();
    } else { anchor = n; }
  });
  window.addEventListener("hashchange", apply);
  document.addEventListener("DOMContentLoaded", apply);
  document.addEventListener("htmx:afterSettle", apply);
})();

/* Copy buttons on snippets: shown only when JS runs (with JS off the text is there to select). */
(function () {
  function reveal() {
    document.querySelectorAll("[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
  }
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) {}
    document.body.removeChild(area);
    return ok ? Promise.resolve() : Promise.reject();
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest && ev.target.closest("[data-copy]");
    if (!button) return;
    var code = button.closest(".snippet").querySelector("pre");
    var text = code.textContent;
    var copied = navigator.clipboard && window.isSecureContext ? navigator.clipboard.writeText(text) : fallback(text);
    copied.then(function () { button.textContent = "Copied"; },
                function () { button.textContent = "Select and copy"; })
      .then(function () { setTimeout(function () { button.textContent = "Copy"; }, 2000); });
  });
  document.addEventListener("DOMContentLoaded", reveal);
  document.addEventListener("htmx:afterSettle", reveal);
})();

/* A run form's model fields show only while the agent that uses them is chosen. Hidden ones are disabled too, so a
   value typed before switching to oracle is not sent. Without JS every field shows, and the server ignores them
   for oracle and nop. */
(function () {
  function sync(form) {
    var agent = form.querySelector("select[name=agent]");
    if (!agent) return;
    form.querySelectorAll("[data-for-agent]").forEach(function (label) {
      var off = label.getAttribute("data-for-agent").split(" ").indexOf(agent.value) < 0;
      label.hidden = off;
      label.querySelectorAll("input, select, textarea").forEach(function (el) { el.disabled = off; });
    });
  }
  function all() { document.querySelectorAll("form.run-form").forEach(sync); }
  document.addEventListener("change", function (ev) {
    if (ev.target.matches && ev.target.matches("form.run-form select[name=agent]")) sync(ev.target.form);
  });
  document.addEventListener("DOMContentLoaded", all);
  document.addEventListener("htmx:afterSettle", all);
})();

/* The file tree marks the open file: the server marks it on a full load, this after a click swaps the viewer in. */
(function () {
  document.addEventListener("htmx:afterSwap", function (ev) {
    var link = ev.detail.requestConfig && ev.detail.requestConfig.elt;
    var tree = link && link.closest && link.closest(".tree");
    if (!tree || ev.detail.target.id !== "viewer") return;
    tree.querySelectorAll("li.current").forEach(function (li) { li.classList.remove("current"); });
    tree.querySelectorAll("[aria-current]").forEach(function (a) { a.removeAttribute("aria-current"); });
    link.closest("li").classList.add("current");
    link.setAttribute("aria-current", "true");
  });
})();
