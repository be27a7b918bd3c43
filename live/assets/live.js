// The live page: draws each state the collector sends (/api/events), and
// keeps per link its own recent past, to colour a link slower than it.
"use strict";
const ms = (v) => (v == null ? "" : v.toFixed(3));
const key = (l) => l.from + " -> " + l.to;
let paused = false;
let previous = null;             // the last state drawn: samples/s from the difference
const pastP95 = new Map();       // link -> smoothed p95 of its recent past
const charts = new Map();        // interval name -> {plot, data}
const kChartPoints = 600;
// Sample to screen: per update drawn, how long after the newest sample's time
// it was drawn (ms; the same machine's clock, or synchronised ones), for benchmarks and tests.
const drawLags = [];
window.hashtraceLive = { drawLags };

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

// A link is slow when its p95 exceeds its own recent past by a fifth; the
// past follows slowly (a minute's smoothing), so a slow link stays red while it is.
function slowness(link) {
  const past = pastP95.get(key(link));
  const slow = past != null && link.count > 0 && link.p95_ms > 1.2 * past && link.p95_ms - past > 0.05;
  if (link.p95_ms > 0) pastP95.set(key(link), past == null ? link.p95_ms : past + (link.p95_ms - past) * 0.005);
  return slow;
}

function drawLinks(state) {
  const body = document.querySelector("#links tbody");
  body.replaceChildren();
  for (const l of state.links) {
    const row = body.insertRow();
    row.dataset.link = key(l);
    l.slow = slowness(l);
    if (l.slow) row.className = "slow";
    cell(row, l.from, "name"); cell(row, l.to, "name");
    cell(row, l.count, "count"); cell(row, l.rate.toFixed(1), "rate");
    cell(row, ms(l.p50_ms), "p50"); cell(row, ms(l.p95_ms), "p95"); cell(row, ms(l.p99_ms), "p99");
  }
}

function drawNodes(state) {
  const body = document.querySelector("#nodes tbody");
  body.replaceChildren();
  const seconds = previous ? (state.time_ns - previous.time_ns) / 1e9 : 0;
  for (const n of state.nodes) {
    const row = body.insertRow();
    row.dataset.node = n.node + "/" + n.instance;
    if (!n.connected) row.className = "gone";
    const before = previous && previous.nodes.find((p) => p.node === n.node && p.instance === n.instance);
    const rate = before && seconds > 0 ? (n.samples - before.samples) / seconds : 0;
    cell(row, n.node, "name"); cell(row, n.instance, "name");
    cell(row, n.connected ? "connected" : "disconnected", "state");
    cell(row, n.samples, "samples"); cell(row, rate.toFixed(0), "rate");
    cell(row, n.dropped, "dropped"); cell(row, n.stream_dropped, "stream-dropped"); cell(row, n.shed || 0, "shed");
    cell(row, n.unlinked_inputs, "unlinked");
    cell(row, n.offset_ns == null ? "not estimated" : (n.offset_ns / 1e6).toFixed(3) + " ms", "offset");
  }
}

// Tracepoints ("node/tracepoint") on a circle, grouped by node; links as arrows.
function drawGraph(state) {
  const svg = document.getElementById("graph");
  const points = [...new Set(state.links.flatMap((l) => [l.from, l.to]))].sort();
  const at = new Map(points.map((p, i) => {
    const a = (2 * Math.PI * i) / Math.max(points.length, 1);
    return [p, [450 + 330 * Math.cos(a), 210 + 170 * Math.sin(a)]];
  }));
  let html = "";
  for (const l of state.links) {
    const [x1, y1] = at.get(l.from), [x2, y2] = at.get(l.to);
    const colour = l.slow ? "#c0392b" : "#888";
    html += `<line data-link="${key(l)}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${colour}" stroke-width="${l.slow ? 3 : 1.5}"/>`;
    html += `<text x="${(x1 + x2) / 2}" y="${(y1 + y2) / 2}" fill="${colour}">${l.rate.toFixed(0)}/s p95 ${ms(l.p95_ms)}</text>`;
  }
  for (const [p, [x, y]] of at) html += `<circle cx="${x}" cy="${y}" r="5" fill="#2c3e50"/><text x="${x + 8}" y="${y - 6}">${p}</text>`;
  svg.innerHTML = html;
}

function chartFor(name) {
  if (charts.has(name)) return charts.get(name);
  const box = document.createElement("div");
  box.className = "interval";
  box.dataset.interval = name;
  const title = document.createElement("div");
  box.append(title);
  document.getElementById("intervals").append(box);
  const data = [[], [], [], []];
  const plot = new uPlot({ width: 420, height: 200, scales: { x: { time: true } },
    series: [{}, { label: "p50 ms", stroke: "#2980b9" }, { label: "p95 ms", stroke: "#e67e22" }, { label: "p99 ms", stroke: "#c0392b" }] }, data, box);
  const entry = { plot, data, title };
  charts.set(name, entry);
  return entry;
}

function drawIntervals(state) {
  for (const i of state.intervals) {
    const c = chartFor(i.name);
    const seg = i.critical_segment;
    c.title.textContent = `${i.name}: ${i.count} since the start, window p50 ${ms(i.p50_ms)} p95 ${ms(i.p95_ms)} p99 ${ms(i.p99_ms)} ms` +
      (seg ? `; critical path's top segment ${seg.from} -> ${seg.to} (${seg.kind}), ${ms(seg.mean_ms)} ms a path, ${(100 * seg.share).toFixed(0)} %` : "");
    c.title.dataset.count = i.count;
    c.title.dataset.p50 = i.p50_ms;
    c.title.dataset.segment = seg ? `${seg.from} -> ${seg.to}` : "";
    c.data[0].push(state.time_ns / 1e9); c.data[1].push(i.p50_ms); c.data[2].push(i.p95_ms); c.data[3].push(i.p99_ms);
    if (c.data[0].length > kChartPoints) c.data.forEach((s) => s.shift());
    c.plot.setData(c.data);
  }
}

function draw(state) {
  drawLinks(state);
  drawNodes(state);
  drawGraph(state);
  drawIntervals(state);
  const lag = state.time_ns ? Date.now() - state.time_ns / 1e6 : 0;
  const status = document.getElementById("status");
  status.textContent = `newest sample ${new Date(state.time_ns / 1e6).toISOString()}, ${lag.toFixed(0)} ms ago; ` +
    `window ${state.window_s.toFixed(1)} s; late samples ${state.late_samples}; refused ${state.refused}` +
    (state.margin_held ? "" : "; links longer than the margin were seen");
  status.dataset.drawnAt = Date.now();
  // Past its capacity the collector sheds whole blocks of samples before linking them, and counts them.
  const shedding = document.getElementById("shedding");
  shedding.textContent = state.shed_samples ? `collector ${state.shedding ? "shedding" : "shed"}: ${state.shed_samples} samples` : "";
  shedding.dataset.shed = state.shed_samples || 0;
  if (state.time_ns) drawLags.push(lag);
  status.dataset.timeNs = state.time_ns;
  document.getElementById("messages").replaceChildren(...state.messages.map((m) => Object.assign(document.createElement("li"), { textContent: m })));
  previous = state;
}

document.getElementById("pause").onclick = (e) => {
  paused = !paused;
  e.target.textContent = paused ? "Resume" : "Pause";
};
document.getElementById("save").onclick = async () => {
  const seconds = document.getElementById("save-seconds").value;
  const reply = await fetch("/api/save?seconds=" + encodeURIComponent(seconds), { method: "POST" });
  document.getElementById("save-result").textContent = reply.ok ? "saved in " + (await reply.json()).folder : await reply.text();
};
const events = new EventSource("/api/events");
events.onmessage = (e) => { if (!paused) draw(JSON.parse(e.data)); };
events.onerror = () => { document.getElementById("status").textContent = "collector unreachable; retrying"; };
