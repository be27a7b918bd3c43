// The space-time diagram (canvas): lanes of samples and message arrows, with
// its own zoom and pan; no chart library draws lanes and arrows like these.
"use strict";

// The window shown, and a drag in progress.
const spaceTime = { t0: 0, t1: 1, drag: null };

function drawSpaceTime() {
  const st = data.space_time;
  const c = document.getElementById("spacetime-chart");
  const canvas = document.getElementById("spacetime-canvas");
  if (!st || !st.lanes.length) { canvas.remove(); empty(c, "No samples."); rendered(c, 0); return; }
  const view = { st, canvas, labelW: 12 + 6.5 * Math.max(...st.lanes.map(l => l.label.length)), laneH: 22, top: 8,
                 maxDensity: Math.max(1, ...st.density.counts.flat()) };
  canvas.style.height = `${view.top + st.lanes.length * view.laneH + 28}px`;
  setupSpaceTimeControls(view);
  const initial = st.open_window || st.detail_window || [0, st.duration_s];
  spaceTime.t0 = initial[0];
  spaceTime.t1 = initial[1] > initial[0] ? initial[1] : initial[0] + 1e-3;
  paintSpaceTime(view);
  rendered(c, st.lanes.length + st.ticks.length + st.edges.length);
}

// Ticks were sampled for the whole run; a window is drawn tick by tick only
// where the embedded ticks are all of that window's samples.
function ticksComplete(st, t0, t1) {
  return st.ticks_total === st.ticks.length ||
    (st.detail_window !== null && t0 >= st.detail_window[0] && t1 <= st.detail_window[1]);
}

function paintSpaceTime(view) {
  const { st, canvas, labelW, laneH, top } = view;
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth || 900, H = canvas.clientHeight;
  canvas.width = W * dpr; canvas.height = H * dpr;
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  g.font = "11px system-ui, sans-serif";
  view.x = linear(spaceTime.t0, spaceTime.t1, labelW, W - 10);
  view.laneY = i => top + i * laneH + laneH / 2;
  paintLanes(g, view, W);
  // Ticks are drawn one by one only when the window holds few enough of them
  // to be told apart; otherwise the density strip stands for them.
  const visibleTicks = st.ticks.filter(t => t[1] >= spaceTime.t0 && t[1] <= spaceTime.t1);
  const detail = ticksComplete(st, spaceTime.t0, spaceTime.t1) && visibleTicks.length <= 20000;
  if (detail) paintTicks(g, view, visibleTicks);
  else paintDensity(g, view);
  // Arrows only when few enough to follow; zoomed out they would hide the lanes.
  const visibleEdges = st.edges.filter(e => e[3] >= spaceTime.t0 && e[1] <= spaceTime.t1);
  const arrows = visibleEdges.length <= 1500 ? visibleEdges.length : 0;
  if (arrows) paintArrows(g, view, visibleEdges);
  paintTimeAxis(g, view);
  document.getElementById("st-info").textContent =
    `${fmt(spaceTime.t1 - spaceTime.t0, 6)} s shown; ${detail ? fmt(visibleTicks.length) + " samples as ticks" : "density view"}; ` +
    (arrows || !visibleEdges.length ? `${fmt(arrows)} message arrows` : `${fmt(visibleEdges.length)} message edges: zoom in to draw them`) +
    ` (${fmt(st.edges.length)} of ${fmt(st.edges_total)} edges embedded` +
    (st.detail_window ? `; every sample and edge of ${fmt(st.detail_window[0], 6)}-${fmt(st.detail_window[1], 6)} s` : "") + ")";
  document.getElementById("st-from").value = +spaceTime.t0.toPrecision(9);
  document.getElementById("st-to").value = +spaceTime.t1.toPrecision(9);
}

function paintLanes(g, view, W) {
  const { st, labelW, laneH, top, laneY } = view;
  st.lanes.forEach((lane, i) => {
    g.fillStyle = i % 2 ? "#f3f5f8" : "#ffffff";
    g.fillRect(labelW, top + i * laneH, W - labelW - 10, laneH);
    g.fillStyle = "#1d2330";
    g.textAlign = "right";
    g.fillText(lane.label, labelW - 6, laneY(i) + 4);
  });
}

function paintDensity(g, view) {
  const { st, laneH, laneY, x, maxDensity } = view;
  const binS = st.duration_s / st.density.bins;
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
}

function paintTicks(g, view, visibleTicks) {
  const { laneY, x } = view;
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

function paintArrows(g, view, edges) {
  const { laneY, x } = view;
  g.strokeStyle = "rgba(196,50,10,0.8)";
  g.fillStyle = "rgba(196,50,10,0.95)";
  for (const [la, ta, lb, tb] of edges) {
    const x0 = x(ta), y0 = laneY(la), x1 = x(tb), y1 = laneY(lb);
    g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke();
    const a = Math.atan2(y1 - y0, x1 - x0);
    g.beginPath(); g.moveTo(x1, y1);
    g.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
    g.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
    g.closePath(); g.fill();
  }
}

function paintTimeAxis(g, view) {
  const { st, laneH, top, x } = view;
  g.fillStyle = "#667085"; g.strokeStyle = "#98a2b3"; g.textAlign = "center";
  const axisY = top + st.lanes.length * laneH + 4;
  for (const v of ticks(spaceTime.t0, spaceTime.t1, 8)) {
    g.beginPath(); g.moveTo(x(v), axisY); g.lineTo(x(v), axisY + 4); g.stroke();
    g.fillText(`${+v.toPrecision(9)} s`, x(v), axisY + 16);
  }
}

// Wheel: zoom about the pointer; drag: pan; double click or "Whole run": the
// whole run; "Show window": the typed one.
function setupSpaceTimeControls(view) {
  const { st, canvas, labelW } = view;
  function setWindow(t0, t1) {
    const minSpan = 1e-7;
    if (!(t1 - t0 >= minSpan)) t1 = t0 + minSpan;
    spaceTime.t0 = t0; spaceTime.t1 = t1;
    paintSpaceTime(view);
  }
  canvas.addEventListener("wheel", ev => {
    ev.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const at = spaceTime.t0 + (spaceTime.t1 - spaceTime.t0) * Math.max(0, (ev.clientX - rect.left - labelW) / (rect.width - labelW - 10));
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
  window.addEventListener("resize", () => paintSpaceTime(view));
}
