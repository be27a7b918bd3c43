// The report's hand-drawn graphs (SVG): the system as `hashtrace infer`
// recovers it, the node latency matrix, and a slow message's route.
"use strict";

// ---------- the system, as `hashtrace infer` recovers it (runs without a spec) ----------
function shortNumber(v) { return String(+Number(v).toPrecision(3)); }

// Columns by chain depth (sources left), one band per node, tracepoints of
// one node at one depth stacked inside it.
const SYS = { colW: 270, tpW: 150, tpH: 36, gap: 10, pad: 10, head: 20, left: 16 };

function drawSystem() {
  const c = document.getElementById("system-chart");
  const sys = data.system;
  if (!sys) { rendered(c, 0); return; }  // the section is hidden
  systemIntro(c, sys);
  if (!sys.nodes.length) { empty(c, "No tracepoints."); rendered(c, 0); return; }
  const { place, boxes, height } = layoutSystem(sys);
  const s = svg("svg", { width: SYS.left + Math.max(1, sys.depths) * SYS.colW + 40, height, class: "system" }, c);
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
  const layers = { suspect: svg("g", {}, s), kept: svg("g", {}, s) };
  for (const p of place.values()) drawTracepoint(s, p);
  layers.labels = svg("g", {}, s);
  let edges = 0;
  for (const e of sys.edges) edges += drawSystemEdge(layers, e, place.get(e.from), place.get(e.to));
  c.dataset.boxes = String(boxes.length);
  c.dataset.tracepoints = String(place.size);
  c.dataset.edges = String(edges);
  rendered(c, boxes.length + place.size + edges);
}

function systemIntro(c, sys) {
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
}

// Each tracepoint's place (selector -> {x, y, tp}), each node's box, and the height of it all.
function layoutSystem(sys) {
  const { colW, tpW, tpH, gap, pad, head, left } = SYS;
  const colX = d => left + pad + d * colW;
  const place = new Map();
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
  return { place, boxes, height: y };
}

function drawTracepoint(s, { x, y, tp }) {
  const { tpW, tpH } = SYS;
  const rect = svg("rect", { x, y, width: tpW, height: tpH, rx: 4,
    class: "system-tracepoint" + (tp.source ? " source" : "") + (tp.sink ? " sink" : "") }, s);
  svg("title", {}, rect, `${tp.selector}: ${fmt(tp.samples)} samples` + (tp.source ? ", a source" : "") + (tp.sink ? ", a sink" : ""));
  if (tp.sink) svg("rect", { x: x + 3, y: y + 3, width: tpW - 6, height: tpH - 6, rx: 3, fill: "none", class: "sink-inner" }, s);
  svg("text", { x: x + tpW / 2, y: y + 15, "text-anchor": "middle" }, s, tp.name);
  svg("text", { x: x + tpW / 2, y: y + 28, "text-anchor": "middle", class: "muted", style: "font-size:10px" }, s, `${fmt(tp.samples)} samples`);
}

// An edge's curve from a's right side to b's left, and where its label goes.
function systemEdgePath(a, b) {
  const { tpW, tpH } = SYS;
  if (a === b) {  // a tracepoint feeding itself (a loop counter): a loop on its right
    const x1 = a.x + tpW, y1 = a.y + tpH / 2;
    return { d: `M ${x1} ${y1 - 8} C ${x1 + 46} ${y1 - 34}, ${x1 + 46} ${y1 + 34}, ${x1} ${y1 + 8}`, lx: x1 + 40, ly: y1 - 30 };
  }
  const x1 = a.x + tpW, y1 = a.y + tpH / 2, x2 = b.x, y2 = b.y + tpH / 2;
  const bend = Math.max(40, Math.abs(x2 - x1) / 2);
  const c1 = x1 + bend, c2 = x2 - bend;
  return { d: `M ${x1} ${y1} C ${c1} ${y1}, ${c2} ${y2}, ${x2} ${y2}`, lx: (x1 + 3 * c1 + 3 * c2 + x2) / 8, ly: (y1 + y2) / 2 + 3 };
}

// Draws edge e between places a and b (1), or nothing when one is not drawn (0).
function drawSystemEdge(layers, e, a, b) {
  if (!a || !b) return 0;
  const { d, lx, ly } = systemEdgePath(a, b);
  const path = svg("path", { d, fill: "none", class: "system-edge" + (e.suspect ? " suspect" : ""),
    "marker-end": `url(#${e.suspect ? "sys-arrow-suspect" : "sys-arrow"})` }, e.suspect ? layers.suspect : layers.kept);
  const lines = [`${shortNumber(e.rate_per_s)}/s`, `${shortNumber(e.p50_ms)} ms`];
  if (e.suspect) lines.push(e.verdict);
  else if (e.scope && e.scope !== "any") lines.push(e.scope);
  svg("title", {}, path, `${e.from} -> ${e.to}: ${lines.join(", ")}`);
  // Suspect pairs cross the picture in every direction: their figures are
  // in the tooltip, so the kept pairs' labels stay readable.
  if (!e.suspect) {
    const text = svg("text", { x: lx, y: ly - 6 * (lines.length - 1), "text-anchor": "middle", class: "edge-label" }, layers.labels);
    lines.forEach((line, i) => svg("tspan", { x: lx, dy: i ? 11 : 0 }, text, line));
  }
  return 1;
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

// ---------- a slow message's recovered route ----------
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
