// cogloop serve's pages. Every value from a run reaches the page as text
// (textContent), never as markup; the report's HTML comes from the server,
// rendered and escaped by html/template.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function option(v) {
  const o = el("option", v);
  o.value = String(v);
  return o;
}

function runLink(id) {
  const a = el("a", id);
  a.href = "/runs/" + encodeURIComponent(id);
  return a;
}

async function postJSON(url, body) {
  const r = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let d = {};
  try { d = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) throw new Error(d.error || r.status + " " + r.statusText);
  return d;
}

function tokens(u) {
  const t = (u.prompt_tokens || 0) + (u.completion_tokens || 0);
  return t ? String(t) : "–";
}

function cost(c) {
  if (!c) return "–";
  return "$" + (c < 0.0001 ? c.toFixed(6) : c.toFixed(4));
}

// ---- runs page ----

function runsPage() {
  const picked = new Set();
  const body = $("runs").tBodies[0];
  const fw = $("filter-workflow"), fs = $("filter-status"), cmp = $("compare");
  const workflows = new Set();
  async function load() {
    let d;
    try {
      const r = await fetch("/api/runs", { credentials: "same-origin" });
      d = await r.json();
      if (!r.ok) throw new Error(d.error || r.statusText);
      $("runs-note").textContent = "";
    } catch (e) {
      $("runs-note").textContent = "could not list the runs: " + e.message;
      return;
    }
    const rows = [];
    for (const run of d.runs) {
      if (run.workflow && !workflows.has(run.workflow)) {
        workflows.add(run.workflow);
        fw.append(option(run.workflow));
      }
      if (fw.value && run.workflow !== fw.value) continue;
      if (fs.value && run.status !== fs.value) continue;
      const tr = el("tr");
      tr.dataset.run = run.run_id;
      const box = el("input");
      box.type = "checkbox";
      box.checked = picked.has(run.run_id);
      box.addEventListener("change", () => {
        if (box.checked) picked.add(run.run_id); else picked.delete(run.run_id);
        cmp.disabled = picked.size < 2;
      });
      const cb = el("td"); cb.append(box);
      const id = el("td", undefined, "mono"); id.append(runLink(run.run_id));
      const st = el("td"); st.append(el("span", run.status, "badge " + run.status));
      const started = run.started ? new Date(run.started).toLocaleString() : "–";
      tr.append(cb, id, el("td", run.workflow || "–"), st, el("td", run.passes || "–", "num"),
        el("td", run.score === undefined ? "–" : run.score.toFixed(2), "num"), el("td", tokens(run.usage || {}), "num"),
        el("td", started, "num"));
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    $("runs-empty").hidden = d.runs.length > 0;
  }
  fw.addEventListener("change", load);
  fs.addEventListener("change", load);
  cmp.addEventListener("click", () => {
    location.href = "/compare?runs=" + [...picked].map(encodeURIComponent).join(",");
  });
  load();
  setInterval(load, 2000);

  const form = $("start");
  if (!form) return;
  fetch("/api/workflows", { credentials: "same-origin" }).then((r) => r.json()).then((d) => {
    for (const w of d.workflows || []) $("start-workflow").append(option(w));
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("start-error").textContent = "";
    try {
      const d = await postJSON("/api/runs", { workflow: $("start-workflow").value, input: $("start-input").value });
      location.href = "/runs/" + encodeURIComponent(d.run_id);
    } catch (e) {
      $("start-error").textContent = e.message;
    }
  });
}

// ---- run page ----

const maxReply = 20000;

function runPage() {
  const id = document.body.dataset.run;
  const base = "/api/runs/" + encodeURIComponent(id);
  const report = $("report"), reply = $("live-reply"), tools = $("live-tools");
  const spent = { tokens: 0, cost: 0 };
  let ended = false, waiting = null;
  // fresh: the agent whose reply has not begun; the last reply stays shown
  // until the next one begins.
  let fresh = null;
  function replyOf(agent) {
    $("live-reply-agent").textContent = agent;
    reply.textContent = "";
  }

  // budget: the workflow's limits, from run.start ({max_tokens, max_cost}).
  let budget = null;
  function showSpent() {
    let t = spent.tokens ? String(spent.tokens) : "–", c = cost(spent.cost);
    if (budget && budget.max_tokens) t = "spent " + String(spent.tokens) + " of " + String(budget.max_tokens);
    if (budget && budget.max_cost) c = "spent " + (spent.cost ? cost(spent.cost) : "$0") + " of " + cost(budget.max_cost);
    $("live-tokens").textContent = t;
    $("live-cost").textContent = c;
  }

  function setStatus(s) {
    const b = $("live-status");
    b.textContent = s;
    b.className = "badge " + s;
    $("pause").hidden = s !== "running" || document.body.dataset.steer !== "yes";
  }

  // The report's body is fetched again after events, one fetch at a time.
  let inFlight = false, again = false, timer = null;
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true;
    try {
      const r = await fetch("/runs/" + encodeURIComponent(id) + "/body", { credentials: "same-origin" });
      if (r.ok) {
        const html = await r.text();
        report.innerHTML = html; // server-rendered by html/template: escaped
        addForks();
        const st = r.headers.get("X-Run-Status");
        if (st && !ended) setStatus(st);
        try {
          const u = JSON.parse(r.headers.get("X-Run-Usage") || "null");
          if (u) {
            // the record's totals: authoritative (model.call events carry no cost)
            spent.tokens = (u.prompt_tokens || 0) + (u.completion_tokens || 0);
            spent.cost = u.cost || 0;
            showSpent();
          }
        } catch (_) { /* no usage */ }
      }
    } finally {
      inFlight = false;
      if (again) { again = false; refresh(); }
    }
  }
  // Each finished pass of a loop gets a "fork from here" button: a new run
  // that keeps the passes before it (POST …/fork, cogloop fork's code).
  function addForks() {
    if (document.body.dataset.fork !== "yes") return;
    for (const table of report.querySelectorAll("table.passes[data-fork-loop]")) {
      const head = table.querySelector("thead tr");
      if (head && !head.querySelector("th.fork")) head.append(el("th", "", "fork"));
      for (const row of table.querySelectorAll("tbody tr[data-pass]")) {
        const td = el("td", undefined, "fork");
        if (row.dataset.done === "yes") {
          const pass = table.dataset.forkLoop + ":" + row.dataset.pass;
          const b = el("button", "fork from here", "fork-button");
          b.type = "button";
          b.dataset.fork = pass;
          b.title = "start a new run that keeps the passes before pass " + row.dataset.pass + " and runs from it";
          b.addEventListener("click", async () => {
            $("fork-error").textContent = "";
            b.disabled = true;
            try {
              const d = await postJSON(base + "/fork", { pass: pass });
              window.location.assign("/runs/" + encodeURIComponent(d.run_id));
            } catch (e) {
              $("fork-error").textContent = "fork from pass " + pass + ": " + e.message;
              b.disabled = false;
            }
          });
          td.append(b);
        }
        row.append(td);
      }
    }
  }
  addForks();

  function soon(now) {
    if (now) { clearTimeout(timer); timer = null; refresh(); return; }
    if (!timer) timer = setTimeout(() => { timer = null; refresh(); }, 300);
  }

  function showHuman(e) {
    waiting = e;
    const d = e.data || {};
    const kind = d.kind || "approve";
    $("human").hidden = false;
    $("human-agent").textContent = (e.agent || "") + " (" + kind + ") at " + (e.node || "");
    $("human-question").textContent = d.question || e.message || "";
    const opts = $("human-options");
    opts.replaceChildren();
    const button = (label, answer) => {
      const b = el("button", label, "option");
      b.type = "button";
      b.dataset.answer = label;
      b.addEventListener("click", () => send(answer));
      opts.append(b);
    };
    const field = $("human-text");
    $("human-form").hidden = kind === "approve" || kind === "choice";
    field.placeholder = { score: "a score: 0..1, 8/10 or 80%", json: "a JSON value", text: "your answer" }[kind] || "";
    if (kind === "approve") {
      button("Approve", { approved: true });
      button("Reject", { approved: false });
    }
    if (kind === "choice") for (const o of d.options || []) button(String(o), { choice: String(o) });
  }
  async function send(a) {
    $("human-error").textContent = "";
    const body = Object.assign({ kind: (waiting.data || {}).kind || "approve", path: waiting.node || "", comment: $("human-comment").value }, a);
    try {
      await postJSON(base + "/answer", body);
      $("human").hidden = true;
      $("human-note").textContent = "answered: the run continues";
    } catch (e) {
      $("human-error").textContent = e.message;
    }
  }
  $("human-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const kind = (waiting.data || {}).kind, v = $("human-text").value;
    if (kind === "score") {
      let n = parseFloat(v);
      if (/%$/.test(v.trim())) n /= 100;
      const m = v.match(/^\s*([0-9.]+)\s*\/\s*([0-9.]+)\s*$/);
      if (m) n = parseFloat(m[1]) / parseFloat(m[2]);
      send({ score: n });
    } else if (kind === "json") {
      try { send({ json: JSON.parse(v) }); } catch (e) { $("human-error").textContent = "not JSON: " + e.message; }
    } else {
      send({ text: v });
    }
  });
  $("pause").addEventListener("click", async () => {
    try {
      await postJSON(base + "/pause", {});
      $("pause-note").textContent = "pause requested: the run stops after its current step";
    } catch (e) {
      $("pause-note").textContent = e.message;
    }
  });

  function handle(e) {
    const d = e.data || {};
    switch (e.kind) {
      case "run.start":
        if (d.budget && typeof d.budget === "object") {
          budget = { max_tokens: Number(d.budget.max_tokens) || 0, max_cost: Number(d.budget.max_cost) || 0 };
          showSpent();
        }
        break;
      case "agent.start":
        if (e.type !== "loop" && e.type !== "fork" && e.type !== "join") {
          $("live-agent").textContent = e.node || e.agent || "";
          fresh = e.node || e.agent || "";
        }
        break;
      case "agent.delta":
        if (fresh !== null) { replyOf(fresh); fresh = null; }
        if (reply.textContent.length < maxReply) reply.textContent += e.response || "";
        break;
      case "agent.end":
        if (fresh !== null && e.response && e.type !== "loop") {
          replyOf(fresh);
          fresh = null;
          reply.textContent = e.response.slice(0, maxReply);
        }
        break;
      case "model.call":
        if (e.usage) {
          spent.tokens += (e.usage.prompt_tokens || 0) + (e.usage.completion_tokens || 0);
          spent.cost += e.usage.cost || 0;
          showSpent();
        }
        break;
      case "loop.pass.start":
        $("live-pass").textContent = (d.loop_number || "?") + (d.max_loops ? "/" + d.max_loops : "") + " of " + (e.node || "");
        break;
      case "loop.iteration":
        soon(true);
        return;
      case "loop.end":
        $("live-stop").textContent = (d.stop_reason || "–") + " (" + (e.node || "") + ")";
        break;
      case "tool.call": {
        const li = el("li", (d.tool || "?") + " " + JSON.stringify(d.args === undefined ? null : d.args));
        li.dataset.id = d.id || "";
        tools.append(li);
        $("live-tools-count").textContent = String(tools.children.length);
        break;
      }
      case "tool.result": {
        const li = [...tools.children].reverse().find((x) => x.dataset.id === (d.id || ""));
        const text = " → " + (e.error ? "error: " + e.error : (e.response || "")).slice(0, 500);
        if (li) li.append(el("span", text, e.error ? "error" : "muted"));
        break;
      }
      case "human.wait":
        showHuman(e);
        setStatus("waiting");
        break;
      case "human.answer":
        $("human").hidden = true;
        waiting = null;
        break;
      case "run.end":
        ended = true;
        setStatus(d.status || (e.error ? "failed" : "ok"));
        $("live-agent").textContent = "–";
        soon(true);
        return;
    }
    soon(false);
  }

  const es = new EventSource(base + "/events");
  es.onopen = () => { $("live-conn").textContent = "live"; };
  es.onerror = () => { $("live-conn").textContent = ended ? "" : "reconnecting…"; };
  // Each event's id is its place in the record: one seen already (a
  // reconnect's replay, a duplicate delivery) is not counted again.
  let seen = 0;
  es.onmessage = (m) => {
    const n = Number(m.lastEventId);
    if (n > 0) {
      if (n <= seen) return;
      seen = n;
    }
    let e;
    try { e = JSON.parse(m.data); } catch (_) { return; }
    handle(e);
  };
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "runs") runsPage();
  if (page === "run") runPage();
});
