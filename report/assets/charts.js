// The interval charts, drawn with uPlot (embedded in the page): per interval a
// histogram with its p50/p95/p99 lines, and latency over the run. Drag to
// zoom in, double click for the whole chart; the legend under each chart
// shows the values under the cursor.
"use strict";

const PCT = [["p50", "#2e6fdb"], ["p95", "#e08b00"], ["p99", "#c4320a"]];
const OUTLIER = "#c4320a";

// Every uPlot chart of the page with what it shows, for whoever inspects the
// page (the browser test reads window.hashtraceReport.charts).
const reportCharts = [];
window.hashtraceReport = { charts: reportCharts };

// Bars for uPlot: one per x value, most of a bin's width.
function bars() { return uPlot.paths.bars({ size: [0.92, Infinity], gap: 0 }); }

// An x scale that opens on [lo, hi] (a bin's room at each end) but follows
// the zoom: uPlot asks the range with the data's ends when it shows it all.
function openingRange(xs, lo, hi) {
  return (u, min, max) => (min === xs[0] && max === xs[xs.length - 1] ? [lo, hi] : [min, max]);
}

// A uPlot hook drawing the interval's p50/p95/p99 as dashed vertical lines.
function percentileLines(summary) {
  return u => {
    const g = u.ctx, px = uPlot.pxRatio, { top, height } = u.bbox;
    g.save();
    g.lineWidth = 1.5 * px;
    g.setLineDash([4 * px, 2 * px]);
    g.font = `${11 * px}px system-ui, sans-serif`;
    PCT.forEach(([name, colour], i) => {
      const v = summary[`${name}_ms`];
      if (v === null || v === undefined || v < u.scales.x.min || v > u.scales.x.max) return;
      const x = Math.round(u.valToPos(v, "x", true));
      g.strokeStyle = colour;
      g.fillStyle = colour;
      g.beginPath(); g.moveTo(x, top); g.lineTo(x, top + height); g.stroke();
      g.fillText(name, x + 3 * px, top + 11 * (i + 1) * px);
    });
    g.restore();
  };
}

// Draws `columns` (x first) in `parent` and records the chart; returns the
// number of values drawn.
function plot(parent, kind, iv, opts, columns) {
  const box = el("div", { class: kind }, parent);
  const chart = new uPlot(opts, columns, box);
  const values = columns.slice(1).reduce((n, c) => n + c.filter(v => v !== null).length, 0);
  box.dataset.series = String(columns.length - 1);
  box.dataset.points = String(columns[0].length);
  reportCharts.push({ interval: iv.name, kind, chart });
  return values;
}

// x: each bin's centre. The overflow (values over twice the p99) is one more
// bar, red, a bin past the last: not drawn to scale, its range in the legend.
function drawHistogram(parent, iv) {
  const h = iv.histogram, hi = h.lo_ms + h.width_ms * h.counts.length;
  const xs = h.counts.map((_, i) => h.lo_ms + (i + 0.5) * h.width_ms);
  const columns = [xs, h.counts.slice()];
  const series = [{ label: "latency (ms)", value: (u, v, s, i) => (i === null || i === undefined ? "--" : binText(h, i, hi)) },
                  { label: "count", fill: "#7aa2e3", stroke: "#7aa2e3", paths: bars(), points: { show: false } }];
  if (h.overflow) {
    xs.push(hi + 1.5 * h.width_ms);
    columns[1].push(null);
    columns.push(xs.map((_, i) => (i === xs.length - 1 ? h.overflow : null)));
    series.push({ label: `over ${fmt(hi)} ms (up to ${fmt(iv.summary.max_ms)})`, fill: OUTLIER, stroke: OUTLIER, paths: bars(),
                  points: { show: false } });
  }
  const opts = {
    title: "latency histogram", width: 420, height: 240, series,
    scales: { x: { time: false, range: openingRange(xs, h.lo_ms, xs[xs.length - 1] + h.width_ms / 2) },
              y: { range: (u, min, max) => [0, Math.max(1, max) * 1.05] } },
    axes: [{ label: "latency (ms)" }, { label: "count" }],
    hooks: { draw: [percentileLines(iv.summary)] },
  };
  return plot(parent, "histogram", iv, opts, columns);
}

function binText(h, i, hi) {
  if (i >= h.counts.length) return `over ${fmt(hi)}`;
  return `${fmt(h.lo_ms + i * h.width_ms)}-${fmt(h.lo_ms + (i + 1) * h.width_ms)}`;
}

// One table for uPlot: the sampled observations (dots) and each time bin's
// p50/p95/p99 (lines) on one x axis, null where a row has no value. With a
// long tail the y axis ends at `cap`; observations above it are red dots on
// the top edge, their true values in the legend.
function overTimeColumns(ot, cap) {
  const rows = [];
  for (const [t, ms] of ot.points) {
    const above = cap !== null && ms > cap;
    rows.push([t, above ? null : ms, above ? ms : null, null, null, null]);
  }
  for (const b of ot.bins) if (b.count > 0) rows.push([b.t_s + ot.bin_s / 2, null, null, b.p50, b.p95, b.p99]);
  rows.sort((a, b) => a[0] - b[0]);
  return [0, 1, 2, 3, 4, 5].map(k => rows.map(r => r[k]));
}

function drawOverTime(parent, iv) {
  const ot = iv.over_time;
  const t1 = Math.max(data.window_s || 0, ...ot.bins.map(b => b.t_s + ot.bin_s));
  const p99 = Math.max(1e-6, iv.summary.p99_ms);
  const maxAll = Math.max(1e-6, ...ot.bins.map(b => b.max), ...ot.points.map(p => p[1]));
  const cap = maxAll > 2 * p99 ? 1.5 * p99 : null;
  const columns = overTimeColumns(ot, cap);
  const xs = columns[0];
  if (!xs.length) { empty(parent, "No observations over time."); return 0; }
  const above = columns[2];
  columns[2] = above.map(v => (v === null ? null : cap));
  const dots = (colour, size) => ({ show: true, size, fill: colour, stroke: colour });
  const series = [
    { label: "time (s)", value: (u, v) => (v === null || v === undefined ? "--" : fmt(v, 6)) },
    { label: "observation (ms)", stroke: "#98a2b3", paths: () => null, points: dots("#98a2b3", 3) },
    { label: `over ${fmt(cap)} ms`, stroke: OUTLIER, paths: () => null, points: dots(OUTLIER, 6),
      value: (u, v, s, i) => (i === null || i === undefined || above[i] === null ? "--" : fmt(above[i])) },
    ...PCT.map(([name, colour]) => ({ label: `${name} (ms)`, stroke: colour, width: 1.5, spanGaps: true, points: { show: false } })),
  ];
  if (cap === null) {  // no long tail: no series above the axis
    columns.splice(2, 1);
    series.splice(2, 1);
  }
  const opts = {
    title: "latency over time", width: 620, height: 240, series,
    scales: { x: { time: false, range: openingRange(xs, 0, t1) },
              y: { range: (u, min, max) => [0, cap === null ? Math.max(1e-6, max) * 1.05 : cap * 1.02] } },
    axes: [{ label: "time since run start (s)" }, { label: "ms" }],
  };
  const values = plot(parent, "over-time", iv, opts, columns);
  el("div", { class: "legend" }, parent,
    `${fmt(ot.points.length)} of ${fmt(iv.summary.count)} observations drawn as dots; lines: percentiles of every observation per ` +
    `${fmt(ot.bin_s * 1000)} ms bin`);
  return values;
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
