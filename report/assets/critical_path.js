// The critical-path section: per interval, the segments that decided its latency.
"use strict";

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
