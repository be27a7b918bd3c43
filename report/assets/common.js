// hashtrace report front end: what every part of the page shares. The page's
// scripts run in this order (html_report.cpp): common.js, tables.js,
// graph.js, charts.js, critical_path.js, spacetime.js, report.js. They read
// the JSON data model embedded in the page (<script id="report-data">,
// described in docs/report.md); the histograms and latency over time are
// uPlot charts (embedded too), the rest SVG or canvas: no network.
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
