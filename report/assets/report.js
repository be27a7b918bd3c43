// Draws every part of the report, in page order; the other scripts define them.
"use strict";

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
