// hashtrace report front end. Reads the JSON data model embedded in the page
// (<script id="report-data">, described in docs/report.md) and draws every
// chart with SVG or canvas: no library, no network.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const data = JSON.parse(document.getElementById("report-data").textContent);

// ---------- small helpers ----------
function el(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function svg(tag, attrs, parent, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return "n/a";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString("en-US");
  const d = digits === undefined ? (Math.abs(v) >= 100 ? 1 : Math.abs(v) >= 1 ? 3 : 4) : digits;
  return v.toFixed(d);
}
function empty(parent, text) { el("p", { class: "empty" }, parent, text); }
// Marks a chart as drawn: the browser test reads data-rendered and data-items.
function rendered(container, items) {
  container.dataset.rendered = "true";
  container.dataset.items = String(items);
}
// "Nice" tick values covering [lo, hi].
function ticks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}
function linear(d0, d1, r0, r1) {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return v => r0 + (v - d0) * k;
}
// Sequential colour scale for the heat map: pale yellow -> red -> dark purple.
function heat(t) {
  const stops = [[255, 247, 188], [254, 196, 79], [236, 112, 20], [204, 76, 2], [140, 45, 4], [60, 10, 60]];
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const c = stops[i].map((a, j) => Math.round(a + (stops[i + 1][j] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
function axisBottom(g, scale, values, y, label, width) {
  const a = svg("g", { class: "axis" }, g);
  svg("line", { x1: scale(values[0]), x2: scale(values[values.length - 1]), y1: y, y2: y }, a);
  for (const v of values) {
    svg("line", { x1: scale(v), x2: scale(v), y1: y, y2: y + 4 }, a);
    svg("text", { x: scale(v), y: y + 15, "text-anchor": "middle" }, a, fmt(v));
  }
  if (label) svg("text", { x: width / 2, y: y + 30, "text-anchor": "middle", class: "muted" }, a, label);
}
function axisLeft(g, scale, values, x, label) {
  const a = svg("g", { class: "axis" }, g);
  for (const v of values) {
    svg("line", { x1: x - 4, x2: x, y1: scale(v), y2: scale(v) }, a);
    svg("text", { x: x - 6, y: scale(v) + 4, "text-anchor": "end" }, a, fmt(v));
  }
  if (label) svg("text", { x: 12, y: 12, class: "muted" }, a, label);
}

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

// ---------- the system, as `hashtrace infer` recovers it (runs without a spec) ----------
function shortNumber(v) { return String(+Number(v).toPrecision(3)); }

function drawSystem() {
  const c = document.getElementById("system-chart");
  const sys = data.system;
  if (!sys) { rendered(c, 0); return; }  // the section is hidden
  el("p", { class: "hint" }, c, `Recovered from the logs alone: ${fmt(sys.kept)} tracepoint pairs kept (solid), ` +
    `${fmt(sys.suspect)} suspect (dashed; point at one for its figures and why); ${fmt(sys.shortcuts)} shortcuts (implied by the drawn pairs) not drawn. ` +
    `With every pair allowed to link, ${fmt(sys.links_a_spec_removes)} of the ${fmt(sys.links)} links would join tracepoints a spec ` +
    "would not pair, or would keep within a thread or instance. Sources are bold, sinks doubled; edges show links per second and the median latency.");
  // A run given no spec is linked as the inferred spec would link it, with an
  // interval per link; with --all-pairs every pair links and none is named.
  const inferred = (data.intervals || []).length > 0;
  el("p", { class: "advice" }, c, (inferred
    ? "No spec was given: this report links the run as the inferred spec would, with an interval per link (analyze --all-pairs links every pair). "
    : "No spec was given and every pair of tracepoints was linked (--all-pairs). ") +
    "For a spec to edit: hashtrace infer LOGS -o spec.toml (then hashtrace analyze LOGS --spec spec.toml)");
  if (!sys.nodes.length) { empty(c, "No tracepoints."); rendered(c, 0); return; }

  // Columns by chain depth (sources left), one band per node, tracepoints of
  // one node at one depth stacked inside it.
  const colW = 270, tpW = 150, tpH = 36, gap = 10, pad = 10, head = 20, left = 16;
  const colX = d => left + pad + d * colW;
  const place = new Map();  // selector -> {x, y}
  const boxes = [];
  const nodes = [...sys.nodes].sort((a, b) =>
    Math.min(...a.tracepoints.map(t => t.depth)) - Math.min(...b.tracepoints.map(t => t.depth)) || (a.name < b.name ? -1 : 1));
  let y = 10;
  for (const node of nodes) {
    const rows = new Map();  // depth -> tracepoints placed there
    for (const tp of node.tracepoints) {
      const row = rows.get(tp.depth) || 0;
      rows.set(tp.depth, row + 1);
      place.set(tp.selector, { x: colX(tp.depth), y: y + head + pad + row * (tpH + gap), tp });
    }
    const depths = node.tracepoints.map(t => t.depth);
    const height = head + 2 * pad + Math.max(...rows.values()) * (tpH + gap) - gap;
    boxes.push({ node, x: colX(Math.min(...depths)) - pad, y, w: (Math.max(...depths) - Math.min(...depths)) * colW + tpW + 2 * pad, h: height });
    y += height + 18;
  }
  const W = left + Math.max(1, sys.depths) * colW + 40, H = y;
  const s = svg("svg", { width: W, height: H, class: "system" }, c);
  const defs = svg("defs", {}, s);
  for (const [id, colour] of [["sys-arrow", "#1d2330"], ["sys-arrow-suspect", "#98a2b3"]]) {
    const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: colour }, marker);
  }
  for (const b of boxes) {
    const g = svg("g", { class: "system-node" }, s);
    svg("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: 6, class: "system-box" }, g);
    svg("text", { x: b.x + 8, y: b.y + 14, class: "system-node-name" }, g, b.node.name);
  }
  // Over the boxes: suspect edges, kept edges, the tracepoints, then the labels.
  const suspectLayer = svg("g", {}, s), keptLayer = svg("g", {}, s);
  for (const { x, y: ty, tp } of place.values()) {
    const rect = svg("rect", { x, y: ty, width: tpW, height: tpH, rx: 4,
      class: "system-tracepoint" + (tp.source ? " source" : "") + (tp.sink ? " sink" : "") }, s);
    svg("title", {}, rect, `${tp.selector}: ${fmt(tp.samples)} samples` + (tp.source ? ", a source" : "") + (tp.sink ? ", a sink" : ""));
    if (tp.sink) svg("rect", { x: x + 3, y: ty + 3, width: tpW - 6, height: tpH - 6, rx: 3, fill: "none", class: "sink-inner" }, s);
    svg("text", { x: x + tpW / 2, y: ty + 15, "text-anchor": "middle" }, s, tp.name);
    svg("text", { x: x + tpW / 2, y: ty + 28, "text-anchor": "middle", class: "muted", style: "font-size:10px" }, s, `${fmt(tp.samples)} samples`);
  }
  const labelLayer = svg("g", {}, s);
  let edges = 0;
  for (const e of sys.edges) {
    const a = place.get(e.from), b = place.get(e.to);
    if (!a || !b) continue;
    let d, lx, ly;
    if (a === b) {  // a tracepoint feeding itself (a loop counter): a loop on its right
      const x1 = a.x + tpW, y1 = a.y + tpH / 2;
      d = `M ${x1} ${y1 - 8} C ${x1 + 46} ${y1 - 34}, ${x1 + 46} ${y1 + 34}, ${x1} ${y1 + 8}`;
      lx = x1 + 40; ly = y1 - 30;
    } else {
      const x1 = a.x + tpW, y1 = a.y + tpH / 2, x2 = b.x, y2 = b.y + tpH / 2;
      const bend = Math.max(40, Math.abs(x2 - x1) / 2);
      const c1 = x1 + bend, c2 = x2 - bend;
      d = `M ${x1} ${y1} C ${c1} ${y1}, ${c2} ${y2}, ${x2} ${y2}`;
      lx = (x1 + 3 * c1 + 3 * c2 + x2) / 8; ly = (y1 + y2) / 2 + 3;
    }
    const path = svg("path", { d, fill: "none", class: "system-edge" + (e.suspect ? " suspect" : ""),
      "marker-end": `url(#${e.suspect ? "sys-arrow-suspect" : "sys-arrow"})` }, e.suspect ? suspectLayer : keptLayer);
    const lines = [`${shortNumber(e.rate_per_s)}/s`, `${shortNumber(e.p50_ms)} ms`];
    if (e.suspect) lines.push(e.verdict);
    else if (e.scope && e.scope !== "any") lines.push(e.scope);
    svg("title", {}, path, `${e.from} -> ${e.to}: ${lines.join(", ")}`);
    // Suspect pairs cross the picture in every direction: their figures are
    // in the tooltip, so the kept pairs' labels stay readable.
    if (!e.suspect) {
      const text = svg("text", { x: lx, y: ly - 6 * (lines.length - 1), "text-anchor": "middle", class: "edge-label" }, labelLayer);
      lines.forEach((line, i) => svg("tspan", { x: lx, dy: i ? 11 : 0 }, text, line));
    }
    ++edges;
  }
  c.dataset.boxes = String(boxes.length);
  c.dataset.tracepoints = String(place.size);
  c.dataset.edges = String(edges);
  rendered(c, boxes.length + place.size + edges);
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

// ---------- intervals: histogram + latency over time ----------
const PCT = [["p50_ms", "var(--p50)", "p50"], ["p95_ms", "var(--p95)", "p95"], ["p99_ms", "var(--p99)", "p99"]];

function drawHistogram(parent, iv) {
  const W = 420, H = 220, m = { l: 48, r: 10, t: 18, b: 40 };
  const s = svg("svg", { width: W, height: H, class: "histogram" }, parent);
  svg("text", { x: m.l, y: 12 }, s, "latency histogram");
  const h = iv.histogram;
  const maxCount = Math.max(1, ...h.counts, h.overflow || 0);
  const hi = h.lo_ms + h.width_ms * h.counts.length;
  // A long tail is one bar at the right, not drawn to scale.
  const tailW = h.overflow ? 34 : 0;
  const x = linear(h.lo_ms, hi, m.l, W - m.r - tailW);
  const y = linear(0, maxCount, H - m.b, m.t);
  h.counts.forEach((n, i) => {
    if (!n) return;
    const x0 = x(h.lo_ms + i * h.width_ms), x1 = x(h.lo_ms + (i + 1) * h.width_ms);
    const bar = svg("rect", { x: x0, y: y(n), width: Math.max(1, x1 - x0 - 0.5), height: H - m.b - y(n), fill: "#7aa2e3" }, s);
    svg("title", {}, bar, `${fmt(h.lo_ms + i * h.width_ms)}-${fmt(h.lo_ms + (i + 1) * h.width_ms)} ms: ${n}`);
  });
  if (h.overflow) {
    const x0 = W - m.r - tailW + 6;
    const bar = svg("rect", { x: x0, y: y(h.overflow), width: tailW - 8, height: H - m.b - y(h.overflow), fill: "#c4320a" }, s);
    svg("title", {}, bar, `${h.overflow} over ${fmt(hi)} ms (up to ${fmt(iv.summary.max_ms)} ms)`);
    svg("text", { x: x0 + (tailW - 8) / 2, y: H - m.b + 15, "text-anchor": "middle" }, s, `>${fmt(hi, 1)}`);
  }
  for (const [key, colour, label] of PCT) {
    const v = iv.summary[key];
    if (v === undefined || v === null || v > hi) continue;
    svg("line", { x1: x(v), x2: x(v), y1: m.t, y2: H - m.b, stroke: colour, "stroke-width": 1.5, "stroke-dasharray": "4 2" }, s);
    svg("text", { x: x(v) + 2, y: m.t + 10 + PCT.findIndex(p => p[0] === key) * 11, fill: colour }, s, label);
  }
  axisBottom(s, x, ticks(h.lo_ms, hi, 5), H - m.b, "latency (ms)", W);
  axisLeft(s, y, ticks(0, maxCount, 4), m.l, "count");
  return h.counts.filter(n => n > 0).length;
}

function drawOverTime(parent, iv) {
  const W = 620, H = 220, m = { l: 48, r: 10, t: 18, b: 40 };
  const s = svg("svg", { width: W, height: H, class: "over-time" }, parent);
  svg("text", { x: m.l, y: 12 }, s, "latency over time");
  const ot = iv.over_time;
  const t1 = Math.max(data.window_s || 0, ...ot.bins.map(b => b.t_s + ot.bin_s));
  // With a long tail the axis ends at 1.5 x the run's p99: rarer outliers
  // (a slow start, a stall) are red marks on the top edge rather than
  // squeezing everything else flat.
  const p99 = Math.max(1e-6, iv.summary.p99_ms);
  const maxAll = Math.max(1e-6, ...ot.bins.map(b => b.max), ...ot.points.map(p => p[1]));
  const maxMs = maxAll > 2 * p99 ? 1.5 * p99 : maxAll;
  const x = linear(0, t1, m.l, W - m.r);
  const y = linear(0, maxMs, H - m.b, m.t);
  let items = 0;
  for (const p of ot.points) {
    if (p[1] > maxMs) {
      const mark = svg("path", { d: `M${x(p[0]) - 3},${m.t + 5} l3,-5 l3,5 z`, fill: "#c4320a" }, s);
      svg("title", {}, mark, `${fmt(p[1])} ms at ${fmt(p[0], 6)} s`);
    } else {
      svg("circle", { cx: x(p[0]), cy: y(p[1]), r: 1.6, fill: "#98a2b3" }, s);
    }
    ++items;
  }
  for (const [key, colour] of PCT) {
    const k = key.replace("_ms", "");
    const pts = ot.bins.filter(b => b.count > 0)
      .map(b => `${x(b.t_s + ot.bin_s / 2).toFixed(1)},${y(Math.min(b[k], maxMs)).toFixed(1)}`);
    if (pts.length) {
      svg("polyline", { points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 1.5 }, s);
      ++items;
    }
  }
  axisBottom(s, x, ticks(0, t1, 6), H - m.b, "time since run start (s)", W);
  axisLeft(s, y, ticks(0, maxMs, 4), m.l, "ms");
  const legend = el("div", { class: "legend" }, parent);
  for (const [, colour, label] of PCT) {
    const span = el("span", {}, legend);
    el("i", { style: `background:${colour}` }, span);
    span.appendChild(document.createTextNode(label));
  }
  el("span", {}, legend, `${fmt(ot.points.length)} of ${fmt(iv.summary.count)} observations drawn as dots`);
  return items;
}

function drawIntervals() {
  const c = document.getElementById("intervals-chart");
  const list = data.intervals || [];
  if (!list.length) { empty(c, "The spec names no intervals."); rendered(c, 0); return; }
  let items = 0;
  for (const iv of list) {
    el("h3", {}, c, `${iv.name} (${iv.kind === "end_to_end" ? "M5 end-to-end" : "M4 process"}): ` +
      `n=${fmt(iv.summary.count)}, mean ${fmt(iv.summary.mean_ms)} ms, p99 ${fmt(iv.summary.p99_ms)} ms`);
    const row = el("div", { class: "interval" }, c);
    if (!iv.summary.count) { empty(row, "No observations."); continue; }
    items += drawHistogram(row, iv);
    items += drawOverTime(el("div", {}, row), iv);
  }
  rendered(c, items);
}

// ---------- critical path: which segments decide each interval's latency ----------
// Distinct colours for the largest segments; the rest share the last (grey).
const SEGMENT_COLOURS = ["#2e6fdb", "#e08b00", "#c4320a", "#087443", "#7a3ec8", "#0e9aa7", "#d4478b", "#6b8e23", "#8c564b", "#98a2b3"];
const CP_ROWS = [["mean_ms", "mean"], ["p50_ms", "p50 instance"], ["p95_ms", "p95 instance"], ["p99_ms", "p99 instance"]];

function segmentName(s) { return `${s.from} -> ${s.to}`; }

// Each segment's colour: the largest (by their biggest contribution in any
// row) get their own, the others are "other segments".
function segmentColours(segments) {
  const biggest = s => Math.max(...CP_ROWS.map(([k]) => s[k]));
  const order = segments.map((s, i) => i).filter(i => biggest(segments[i]) > 0)
    .sort((a, b) => biggest(segments[b]) - biggest(segments[a]));
  const colour = new Array(segments.length).fill(SEGMENT_COLOURS[SEGMENT_COLOURS.length - 1]);
  order.slice(0, SEGMENT_COLOURS.length - 1).forEach((i, rank) => { colour[i] = SEGMENT_COLOURS[rank]; });
  return { colour, named: new Set(order.slice(0, SEGMENT_COLOURS.length - 1)) };
}

function drawSegmentBars(parent, cp, colours) {
  const W = 820, rowH = 26, m = { l: 100, r: 90, t: 8, b: 36 }, H = m.t + CP_ROWS.length * rowH + m.b;
  const s = svg("svg", { width: W, height: H, class: "cp-bars" }, parent);
  const totals = CP_ROWS.map(([k]) => cp.segments.reduce((sum, seg) => sum + seg[k], 0));
  const x = linear(0, Math.max(1e-9, ...totals), m.l, W - m.r);
  let items = 0;
  CP_ROWS.forEach(([key, label], row) => {
    const y = m.t + row * rowH;
    svg("text", { x: m.l - 8, y: y + rowH / 2 + 2, "text-anchor": "end" }, s, label);
    let at = 0;
    cp.segments.forEach((seg, i) => {
      const v = seg[key];
      if (!(v > 0)) return;
      const rect = svg("rect", { x: x(at), y: y + 3, width: Math.max(0.5, x(at + v) - x(at)), height: rowH - 8,
        fill: colours.colour[i], class: "cp-segment" }, s);
      svg("title", {}, rect, `${segmentName(seg)} (${seg.kind}): ${fmt(v)} ms, ${fmt(100 * v / totals[row], 1)} % of the ${label}`);
      if (x(at + v) - x(at) > 42)
        svg("text", { x: (x(at) + x(at + v)) / 2, y: y + rowH / 2 + 2, "text-anchor": "middle", class: "on-bar" }, s,
          `${fmt(100 * v / totals[row], 0)}%`);
      at += v;
      ++items;
    });
    svg("text", { x: x(at) + 6, y: y + rowH / 2 + 2 }, s, `${fmt(totals[row])} ms`);
  });
  axisBottom(s, x, ticks(0, Math.max(1e-9, ...totals), 6), m.t + CP_ROWS.length * rowH + 2, "contribution (ms)", W);
  const legend = el("div", { class: "legend" }, parent);
  cp.segments.forEach((seg, i) => {
    if (!colours.named.has(i)) return;
    const span = el("span", {}, legend);
    el("i", { style: `background:${colours.colour[i]};height:10px` }, span);
    span.appendChild(document.createTextNode(`${segmentName(seg)} (${seg.kind})`));
  });
  if (cp.segments.length > colours.named.size) {
    const span = el("span", {}, legend);
    el("i", { style: `background:${SEGMENT_COLOURS[SEGMENT_COLOURS.length - 1]};height:10px` }, span);
    span.appendChild(document.createTextNode("other segments"));
  }
  return items;
}

function drawSlackTable(parent, cp, colours) {
  const t = el("table", { class: "slack-table" }, parent);
  const head = el("tr", {}, t);
  for (const k of ["segment", "kind", "on path", "mean (ms)", "share", "p50 (ms)", "p95 (ms)", "p99 (ms)", "slack (ms)"]) el("th", {}, head, k);
  cp.segments.forEach((seg, i) => {
    const r = el("tr", {}, t);
    const name = el("td", {}, r);
    el("i", { class: "swatch", style: `background:${colours.colour[i]}` }, name);
    name.appendChild(document.createTextNode(segmentName(seg)));
    el("td", { class: "text" }, r, seg.kind);
    el("td", {}, r, `${fmt(100 * seg.on_path_fraction, 1)} %`);
    el("td", {}, r, fmt(seg.mean_ms));
    el("td", {}, r, `${fmt(100 * seg.share, 1)} %`);
    for (const k of ["p50_ms", "p95_ms", "p99_ms", "slack_ms"]) el("td", {}, r, fmt(seg[k]));
  });
  return cp.segments.length;
}

function drawCriticalPaths() {
  const c = document.getElementById("critical-path-chart");
  const list = data.critical_paths || [];
  if (!list.length) { empty(c, "The spec names no intervals: a critical path runs from an interval's `from` to its `to`."); rendered(c, 0); return; }
  let items = 0;
  for (const cp of list) {
    let notes = "";
    if (cp.not_followed) notes += `; ${fmt(cp.not_followed)} instances could not be followed`;
    if (cp.unreached_starts) notes += `; ${fmt(cp.unreached_starts)} starts reach no end`;
    el("h3", {}, c, `${cp.interval}: ${fmt(cp.count)} instances, mean ${fmt(cp.mean_ms)} ms, p50 ${fmt(cp.p50_ms)}, ` +
      `p95 ${fmt(cp.p95_ms)}, p99 ${fmt(cp.p99_ms)} ms${notes}`);
    if (!cp.segments.length) { empty(c, "No instance to follow."); continue; }
    const colours = segmentColours(cp.segments);
    items += drawSegmentBars(el("div", {}, c), cp, colours);
    items += drawSlackTable(c, cp, colours);
  }
  rendered(c, items);
}

// ---------- node latency heat map ----------
function drawMatrix() {
  const c = document.getElementById("matrix-chart");
  const mx = data.node_matrix;
  c.textContent = "";
  if (!mx || !mx.nodes.length) { empty(c, "No node pairs."); rendered(c, 0); return; }
  const stat = document.getElementById("matrix-stat").value;
  const n = mx.nodes.length, cell = Math.max(26, Math.min(60, 480 / n));
  const labelW = 12 + 7 * Math.max(...mx.nodes.map(s => s.length));
  const W = labelW + n * cell + 80, H = labelW + n * cell + 10;
  const s = svg("svg", { width: W, height: H }, c);
  const values = mx.cells.map(v => v[stat]);
  const hi = Math.max(1e-12, ...values);
  const index = new Map(mx.nodes.map((name, i) => [name, i]));
  mx.nodes.forEach((name, i) => {
    svg("text", { x: labelW - 6, y: labelW + i * cell + cell / 2 + 4, "text-anchor": "end" }, s, name);
    svg("text", { x: 0, y: 0, transform: `translate(${labelW + i * cell + cell / 2 + 4},${labelW - 6}) rotate(-60)` }, s, name);
  });
  // Black background: pairs without a path (the paper's Figure 4).
  svg("rect", { x: labelW, y: labelW, width: n * cell, height: n * cell, fill: "#000" }, s);
  for (const v of mx.cells) {
    const r = index.get(v.from), col = index.get(v.to);
    const rect = svg("rect", { x: labelW + col * cell + 0.5, y: labelW + r * cell + 0.5, width: cell - 1, height: cell - 1,
      fill: heat(v[stat] / hi), class: "cell" }, s);
    svg("title", {}, rect, `${v.from} -> ${v.to}: n=${v.count}, mean ${fmt(v.mean_ms)} ms, max ${fmt(v.max_ms)} ms`);
    if (cell >= 40) svg("text", { x: labelW + col * cell + cell / 2, y: labelW + r * cell + cell / 2 + 4,
      "text-anchor": "middle", style: `font-size:10px;fill:${v[stat] / hi > 0.55 ? "#fff" : "#1d2330"}` }, s,
      fmt(v[stat], stat === "count" ? 0 : 1));
  }
  for (let i = 0; i < n; ++i)
    svg("rect", { x: labelW + i * cell + 0.5, y: labelW + i * cell + 0.5, width: cell - 1, height: cell - 1, fill: "#555" }, s);
  // Colour legend.
  const lx = labelW + n * cell + 20;
  for (let i = 0; i < 50; ++i)
    svg("rect", { x: lx, y: labelW + (49 - i) * (n * cell / 50), width: 14, height: n * cell / 50 + 0.5, fill: heat(i / 49) }, s);
  svg("text", { x: lx + 18, y: labelW + 10 }, s, fmt(hi));
  svg("text", { x: lx + 18, y: labelW + n * cell }, s, "0");
  svg("text", { x: 4, y: 12, class: "muted" }, s, "rows: from, columns: to");
  rendered(c, mx.cells.length);
}

// ---------- space-time diagram ----------
const spaceTime = { t0: 0, t1: 1, drag: null };

function drawSpaceTime() {
  const st = data.space_time;
  const c = document.getElementById("spacetime-chart");
  const canvas = document.getElementById("spacetime-canvas");
  if (!st || !st.lanes.length) { canvas.remove(); empty(c, "No samples."); rendered(c, 0); return; }
  const labelW = 12 + 6.5 * Math.max(...st.lanes.map(l => l.label.length));
  const laneH = 22, top = 8, axisH = 28;
  canvas.style.height = `${top + st.lanes.length * laneH + axisH}px`;
  const dpr = window.devicePixelRatio || 1;
  const maxDensity = Math.max(1, ...st.density.counts.flat());
  const info = document.getElementById("st-info");

  // Ticks were sampled for the whole run; a window is drawn tick by tick only
  // where the embedded ticks are all of that window's samples.
  const ticksComplete = (t0, t1) => st.ticks_total === st.ticks.length ||
    (st.detail_window !== null && t0 >= st.detail_window[0] && t1 <= st.detail_window[1]);

  function draw() {
    const W = canvas.clientWidth || 900, H = canvas.clientHeight;
    canvas.width = W * dpr; canvas.height = H * dpr;
    const g = canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    g.font = "11px system-ui, sans-serif";
    const x = linear(spaceTime.t0, spaceTime.t1, labelW, W - 10);
    const laneY = i => top + i * laneH + laneH / 2;
    st.lanes.forEach((lane, i) => {
      g.fillStyle = i % 2 ? "#f3f5f8" : "#ffffff";
      g.fillRect(labelW, top + i * laneH, W - labelW - 10, laneH);
      g.fillStyle = "#1d2330";
      g.textAlign = "right";
      g.fillText(lane.label, labelW - 6, laneY(i) + 4);
    });
    const span = spaceTime.t1 - spaceTime.t0;
    const binS = st.duration_s / st.density.bins;
    // Ticks are drawn one by one only when the window holds few enough of them
    // to be told apart; otherwise the density strip stands for them.
    const visibleTicks = st.ticks.filter(t => t[1] >= spaceTime.t0 && t[1] <= spaceTime.t1);
    const detail = ticksComplete(spaceTime.t0, spaceTime.t1) && visibleTicks.length <= 20000;
    if (!detail) {
      st.density.counts.forEach((counts, lane) => {
        counts.forEach((n, b) => {
          if (!n) return;
          const t = b * binS;
          if (t + binS < spaceTime.t0 || t > spaceTime.t1) return;
          g.fillStyle = `rgba(29,35,48,${(0.12 + 0.6 * Math.log1p(n) / Math.log1p(maxDensity)).toFixed(3)})`;
          const x0 = x(t), x1 = x(t + binS);
          g.fillRect(x0, laneY(lane) - laneH / 2 + 3, Math.max(1, x1 - x0), laneH - 6);
        });
      });
    } else {
      g.strokeStyle = "#1d2330";
      g.lineWidth = 1;
      g.beginPath();
      for (const [lane, t] of visibleTicks) {
        const px = Math.round(x(t)) + 0.5;
        g.moveTo(px, laneY(lane) - 7);
        g.lineTo(px, laneY(lane) + 7);
      }
      g.stroke();
    }
    // Arrows only when few enough to follow; zoomed out they would hide the lanes.
    const visibleEdges = st.edges.filter(e => e[3] >= spaceTime.t0 && e[1] <= spaceTime.t1);
    const arrows = visibleEdges.length <= 1500 ? visibleEdges.length : 0;
    g.strokeStyle = "rgba(196,50,10,0.8)";
    g.fillStyle = "rgba(196,50,10,0.95)";
    for (const [la, ta, lb, tb] of arrows ? visibleEdges : []) {
      const x0 = x(ta), y0 = laneY(la), x1 = x(tb), y1 = laneY(lb);
      g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke();
      const a = Math.atan2(y1 - y0, x1 - x0);
      g.beginPath(); g.moveTo(x1, y1);
      g.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
      g.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
      g.closePath(); g.fill();
    }
    g.fillStyle = "#667085"; g.strokeStyle = "#98a2b3"; g.textAlign = "center";
    const axisY = top + st.lanes.length * laneH + 4;
    for (const v of ticks(spaceTime.t0, spaceTime.t1, 8)) {
      g.beginPath(); g.moveTo(x(v), axisY); g.lineTo(x(v), axisY + 4); g.stroke();
      g.fillText(`${+v.toPrecision(9)} s`, x(v), axisY + 16);
    }
    info.textContent = `${fmt(span, 6)} s shown; ${detail ? fmt(visibleTicks.length) + " samples as ticks" : "density view"}; ` +
      (arrows || !visibleEdges.length ? `${fmt(arrows)} message arrows` : `${fmt(visibleEdges.length)} message edges: zoom in to draw them`) +
      ` (${fmt(st.edges.length)} of ${fmt(st.edges_total)} edges embedded` +
      (st.detail_window ? `; every sample and edge of ${fmt(st.detail_window[0], 6)}-${fmt(st.detail_window[1], 6)} s` : "") + ")";
    document.getElementById("st-from").value = +spaceTime.t0.toPrecision(9);
    document.getElementById("st-to").value = +spaceTime.t1.toPrecision(9);
  }

  function setWindow(t0, t1) {
    const minSpan = 1e-7;
    if (!(t1 - t0 >= minSpan)) t1 = t0 + minSpan;
    spaceTime.t0 = t0; spaceTime.t1 = t1;
    draw();
  }
  canvas.addEventListener("wheel", ev => {
    ev.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const W = rect.width;
    const at = spaceTime.t0 + (spaceTime.t1 - spaceTime.t0) * Math.max(0, (ev.clientX - rect.left - labelW) / (W - labelW - 10));
    const k = Math.exp(ev.deltaY * 0.002);
    setWindow(at - (at - spaceTime.t0) * k, at + (spaceTime.t1 - at) * k);
  }, { passive: false });
  canvas.addEventListener("mousedown", ev => { spaceTime.drag = { x: ev.clientX, t0: spaceTime.t0, t1: spaceTime.t1 }; });
  window.addEventListener("mouseup", () => { spaceTime.drag = null; });
  window.addEventListener("mousemove", ev => {
    const d = spaceTime.drag;
    if (!d) return;
    const W = canvas.getBoundingClientRect().width - labelW - 10;
    const dt = (ev.clientX - d.x) / W * (d.t1 - d.t0);
    setWindow(d.t0 - dt, d.t1 - dt);
  });
  canvas.addEventListener("dblclick", () => setWindow(0, st.duration_s));
  document.getElementById("st-reset").addEventListener("click", () => setWindow(0, st.duration_s));
  document.getElementById("st-apply").addEventListener("click", () =>
    setWindow(parseFloat(document.getElementById("st-from").value), parseFloat(document.getElementById("st-to").value)));
  window.addEventListener("resize", draw);

  const initial = st.open_window || st.detail_window || [0, st.duration_s];
  spaceTime.t0 = initial[0];
  spaceTime.t1 = initial[1] > initial[0] ? initial[1] : initial[0] + 1e-3;
  draw();
  rendered(c, st.lanes.length + st.ticks.length + st.edges.length);
}

// ---------- slowest messages and routes ----------
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

function drawRoute() {
  const c = document.getElementById("route-chart");
  c.textContent = "";
  const routes = data.routes || [];
  if (!routes.length) { empty(c, "No route recovered."); rendered(c, 0); return; }
  const route = routes[Number(document.getElementById("route-select").value) || 0];
  el("p", { class: "hint" }, c, route.title + (route.truncated ? " (truncated at the route limits)" : ""));
  // Layout: x = time, y = one row per node instance/thread lane in the route.
  const lanes = [...new Set(route.samples.map(s => s.lane))];
  const laneIndex = new Map(lanes.map((l, i) => [l, i]));
  const laneLabel = l => (data.space_time && data.space_time.lanes[l]) ? data.space_time.lanes[l].label : `lane ${l}`;
  const labelW = 12 + 6.5 * Math.max(...lanes.map(l => laneLabel(l).length));
  const rowH = 46, W = Math.max(700, Math.min(1300, 140 * route.samples.length)), H = 30 + lanes.length * rowH + 30;
  const s = svg("svg", { width: W, height: H }, c);
  const defs = svg("defs", {}, s);
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
  svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#2e6fdb" }, marker);
  const ts = route.samples.map(p => p.t_s);
  const t0 = Math.min(...ts), t1 = Math.max(...ts);
  // Rank order keeps samples that share a time apart; times are in the labels.
  const order = route.samples.map((p, i) => i).sort((a, b) => route.samples[a].t_s - route.samples[b].t_s || a - b);
  const rank = new Map(order.map((i, r) => [i, r]));
  const x = i => labelW + 30 + rank.get(i) * (W - labelW - 80) / Math.max(1, route.samples.length - 1);
  const y = i => 30 + laneIndex.get(route.samples[i].lane) * rowH + rowH / 2;
  lanes.forEach((l, i) => {
    svg("text", { x: labelW - 6, y: 30 + i * rowH + rowH / 2 + 4, "text-anchor": "end" }, s, laneLabel(l));
    svg("line", { x1: labelW, x2: W - 10, y1: 30 + i * rowH + rowH / 2, y2: 30 + i * rowH + rowH / 2, stroke: "#e4e7ec" }, s);
  });
  for (const [a, b] of route.edges) {
    svg("line", { x1: x(a), y1: y(a), x2: x(b), y2: y(b), stroke: "#2e6fdb", "stroke-width": 1.5, "marker-end": "url(#arrow)" }, s);
  }
  // Labels only where there is room for them; the tooltip always has them.
  const roomy = (W - labelW - 80) / Math.max(1, route.samples.length - 1) >= 70;
  route.samples.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(i), r: i === route.origin ? 7 : 5,
      fill: i === route.origin ? "#c4320a" : "#1d2330", class: "route-sample" }, s);
    svg("title", {}, dot, `${p.label} at ${fmt(p.t_s, 9)} s (+${fmt((p.t_s - t0) * 1000, 3)} ms)`);
    if (!roomy) return;
    svg("text", { x: x(i), y: y(i) - 9, "text-anchor": "middle", style: "font-size:10px" }, s, p.tracepoint);
    svg("text", { x: x(i), y: y(i) + 17, "text-anchor": "middle", class: "muted", style: "font-size:9px" }, s,
      `+${fmt((p.t_s - t0) * 1000, 3)} ms`);
  });
  svg("text", { x: labelW, y: 14, class: "muted" }, s, `spans ${fmt((t1 - t0) * 1000, 3)} ms; samples in time order left to right`);
  rendered(c, route.samples.length + route.edges.length);
}

function setupRoutes() {
  const sel = document.getElementById("route-select");
  (data.routes || []).forEach((r, i) => el("option", { value: String(i) }, sel, r.title));
  sel.addEventListener("change", drawRoute);
  drawRoute();
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

// Each chart draws independently: one failing must not hide the others, but
// the error still reaches the console (and so fails the browser test).
for (const draw of [drawHeader, drawHealth, drawSystem, drawMetrics, drawIntervals, drawCriticalPaths, drawMatrix, drawSpaceTime, drawSlowest, setupRoutes, drawGaps]) {
  try { draw(); } catch (e) { console.error(`${draw.name}: ${e && e.stack || e}`); }
}
document.getElementById("matrix-stat").addEventListener("change", drawMatrix);
// The system is drawn for runs analysed without a spec only.
if (!data.system) {
  document.getElementById("system").hidden = true;
  document.querySelector('nav a[href="#system"]').hidden = true;
}
// A comparison holds the runs' tables only: hide the single-run charts.
if (data.comparison) {
  for (const id of ["health", "system", "intervals", "critical-path", "matrix", "spacetime", "slowest", "route", "gaps"]) {
    document.getElementById(id).hidden = true;
    document.querySelector(`nav a[href="#${id}"]`).hidden = true;
  }
}
document.body.dataset.ready = "true";
