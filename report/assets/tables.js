// The report's tables: header, run health, metrics, slowest messages, idle gaps.
"use strict";

// ---------- header and health ----------
function drawHeader() {
  document.getElementById("title").textContent = data.title || "hashtrace report";
  document.title = data.title || "hashtrace report";
  const h = data.health || {};
  document.getElementById("subtitle").textContent = (data.comparison
    ? `${(data.runs || []).length} runs side by side; the best value of each row in bold`
    : `${fmt(h.samples)} samples on ${(h.nodes || []).length} node instances over ${fmt(data.window_s)} s`) +
    (data.generated_by ? ` - ${data.generated_by}` : "") + samplesWindowNote();
}

// A run analysed in time shards: what the samples of one window show, and what covers the whole run.
function samplesWindowNote() {
  const w = data.samples_window;
  if (!w) return "";
  return `. Analysed in time shards: tables, histograms and latency over time cover the whole run; ` +
    `the space-time diagram, latency dots, slowest messages, idle gaps and critical paths show ${fmt(w[0])}-${fmt(w[1])} s`;
}

function drawHealth() {
  const c = document.getElementById("health-chart");
  const h = data.health;
  if (!h) { empty(c, "No health data."); rendered(c, 0); return; }
  const cards = el("div", { class: "cards" }, c);
  const entries = [["samples", h.samples], ["edges", h.edges], ["message edges", h.message_edges],
    ["dropped samples", h.dropped_samples, true], ["unlinked inputs", h.unlinked_inputs, true],
    ["unconsumed outputs", h.unconsumed_outputs], ["bad records", h.bad_records, true], ["torn files", h.torn_files, true],
    ["logs not closed cleanly", (h.unclean_files || []).length, true]];
  for (const [k, v, badIfPositive] of entries) {
    const card = el("div", { class: "card" + (badIfPositive && v > 0 ? " bad" : "") }, cards);
    el("div", { class: "v" }, card, fmt(v));
    el("div", { class: "k" }, card, k);
  }
  if ((h.unclean_files || []).length) {
    el("p", { class: "warning" }, c, "These logs have no end marker: their process was killed or crashed before " +
      "closing them, so samples it still held in memory (at most its last flush interval's, 100 ms by default) may be missing:");
    const list = el("ul", { class: "unclean-files" }, c);
    for (const f of h.unclean_files) el("li", {}, list, f);
  }
  const t = el("table", {}, c);
  const head = el("tr", {}, t);
  for (const k of ["node", "instance", "host", "samples", "dropped", "unlinked inputs", "clock source", "clock error (ms)"])
    el("th", {}, head, k);
  for (const n of h.nodes || []) {
    const r = el("tr", {}, t);
    el("td", {}, r, n.node);
    el("td", { class: "text" }, r, n.instance);
    el("td", { class: "text" }, r, n.host || "");
    el("td", {}, r, fmt(n.samples));
    el("td", {}, r, fmt(n.dropped));
    el("td", {}, r, fmt(n.unlinked_inputs));
    el("td", { class: "text" }, r, n.clock_source || "unknown");
    el("td", {}, r, n.clock_error_ms === null || n.clock_error_ms === undefined ? "n/a" : fmt(n.clock_error_ms));
  }
  rendered(c, entries.length + (h.nodes || []).length);
}

// ---------- metric tables (one column per run) ----------
// Marks the best of a row's values when runs are compared.
function bestIndex(values, better) {
  if (values.filter(v => v !== undefined && v !== null).length < 2) return -1;
  if (better !== "lower" && better !== "higher") return -1;
  let best = -1;
  values.forEach((v, i) => {
    if (v === undefined || v === null) return;
    if (best < 0 || (better === "lower" ? v < values[best] : v > values[best])) best = i;
  });
  return best;
}

function drawMetrics() {
  const c = document.getElementById("metrics-chart");
  const runs = data.runs || [];
  if (!runs.length) { empty(c, "No metrics."); rendered(c, 0); return; }
  // Rows are keyed by metric name; runs may lack some.
  const rows = new Map();
  runs.forEach((run, i) => {
    for (const m of run.metrics) {
      if (!rows.has(m.name)) rows.set(m.name, { unit: m.unit, better: m.better, values: [] });
      rows.get(m.name).values[i] = m.value;
    }
  });
  const t = el("table", { class: "metric-table" }, c);
  const head = el("tr", {}, t);
  el("th", {}, head, "metric");
  el("th", {}, head, "unit");
  for (const run of runs) el("th", {}, head, run.name);
  for (const [name, row] of rows) {
    const r = el("tr", {}, t);
    el("td", {}, r, name);
    el("td", { class: "text" }, r, row.unit || "");
    const best = bestIndex(runs.map((_, i) => row.values[i]), row.better);
    runs.forEach((_, i) => el("td", i === best ? { class: "best" } : {}, r, fmt(row.values[i])));
  }
  // Interval latency: one row per interval, the statistics of each run side by side.
  const names = [...new Set(runs.flatMap(run => (run.intervals || []).map(iv => iv.name)))];
  let items = rows.size;
  if (names.length) {
    el("h3", {}, c, "Interval latency (ms): M4 process, M5 end-to-end");
    const stats = runs.length > 1 ? ["count", "mean_ms", "p99_ms", "max_ms"]
                                   : ["count", "mean_ms", "sd_ms", "min_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"];
    const it = el("table", { class: "interval-table" }, c);
    if (runs.length > 1) {
      const top = el("tr", {}, it);
      el("th", {}, top, "");
      for (const run of runs) el("th", { colspan: stats.length, style: "text-align:center" }, top, run.name);
    }
    const h = el("tr", {}, it);
    el("th", {}, h, "interval");
    for (let i = 0; i < runs.length; ++i) for (const k of stats) el("th", {}, h, k.replace("_ms", ""));
    for (const name of names) {
      const r = el("tr", {}, it);
      const per = runs.map(run => (run.intervals || []).find(iv => iv.name === name));
      // Specs often name intervals "M4.1 ...": no second prefix then.
      const id = per.find(Boolean).kind === "end_to_end" ? "M5" : "M4";
      el("td", {}, r, name.startsWith(id) ? name : `${id} ${name}`);
      for (let i = 0; i < runs.length; ++i) {
        for (const k of stats) {
          const values = per.map(p => p && p.latency.count ? p.latency[k] : null);
          const best = k === "count" ? -1 : bestIndex(values, "lower");
          el("td", i === best ? { class: "best" } : {}, r, values[i] === null ? "n/a" : fmt(values[i]));
        }
      }
      ++items;
    }
  }
  rendered(c, items);
}

// ---------- slowest messages ----------
function drawSlowest() {
  const c = document.getElementById("slowest-chart");
  const list = data.slowest || [];
  if (!list.length) { empty(c, "No interval observations to rank."); rendered(c, 0); return; }
  const t = el("table", {}, c);
  const head = el("tr", {}, t);
  for (const k of ["#", "interval", "latency (ms)", "from", "to", "at (s)", "route"]) el("th", {}, head, k);
  list.forEach((m, i) => {
    const r = el("tr", {}, t);
    el("td", {}, r, String(i + 1));
    el("td", { class: "text" }, r, m.interval);
    el("td", {}, r, fmt(m.latency_ms));
    el("td", { class: "text" }, r, m.from);
    el("td", { class: "text" }, r, m.to);
    el("td", {}, r, fmt(m.t_s, 6));
    const cell = el("td", { class: "text" }, r);
    const routeIndex = m.route;
    const b = el("button", { class: "link" }, cell, `${data.routes[routeIndex].samples.length} samples`);
    b.addEventListener("click", () => {
      document.getElementById("route-select").value = String(routeIndex);
      drawRoute();
      document.getElementById("route").scrollIntoView();
    });
  });
  rendered(c, list.length);
}

// ---------- idle gaps ----------
function drawGaps() {
  const c = document.getElementById("gaps-chart");
  const g = data.idle_gaps;
  if (!g) { empty(c, "No idle gap analysis."); rendered(c, 0); return; }
  el("p", { class: "hint" }, c, `Periods over ${fmt(g.threshold_ms)} ms in which a node instance recorded nothing; ` +
    `highlighted when ${g.flag_concurrent} or more node instances paused at once.`);
  if (!g.gaps.length) { empty(c, "No idle gaps."); rendered(c, 0); return; }
  const t = el("table", {}, c);
  const head = el("tr", {}, t);
  for (const k of ["node instance", "from (s)", "to (s)", "length (ms)", "instances paused at once"]) el("th", {}, head, k);
  for (const gap of g.gaps) {
    const r = el("tr", gap.concurrent >= g.flag_concurrent ? { class: "flag" } : {}, t);
    el("td", {}, r, gap.node);
    el("td", {}, r, fmt(gap.start_s, 6));
    el("td", {}, r, fmt(gap.end_s, 6));
    el("td", {}, r, fmt(gap.duration_ms));
    el("td", {}, r, String(gap.concurrent));
  }
  if (g.gaps_total > g.gaps.length) el("p", { class: "hint" }, c, `Longest ${g.gaps.length} of ${fmt(g.gaps_total)} gaps shown.`);
  rendered(c, g.gaps.length);
}
