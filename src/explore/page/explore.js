/* explore.js — the script of `augur explore`'s page (docs/explore.md).
 *
 * It reads the data document augur embedded (#augur-data) and shows a run,
 * or a prediction at the sliders' parameter values.  A prediction's counts
 * and fully-associative misses are evaluated here from the stored models
 * with the arithmetic of src/model and src/predict (modelEval, rdMisses,
 * predictAt), so they follow the sliders at any value and agree with
 * `augur predict` (tests/explore checks 6 significant digits); the machine
 * models' misses, cycles and times were computed by augur on a grid of
 * parameter values, and the page shows the grid point nearest the sliders.
 * Every name from the data reaches the document as text (textContent),
 * never as HTML. */
"use strict";

const DATA = JSON.parse(document.getElementById("augur-data").textContent);
const SOURCE_CHUNK = 400;   /* source lines rendered at a time (lazy rendering) */
const TABLE_ROWS = 200;     /* table rows shown until "every row" is ticked */
const CURVE_POINTS = 160;   /* points of a plotted model curve */

/* ---- small helpers --------------------------------------------------------------------- */

/* A new element with text (never parsed as HTML) and a class. */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function clamp(v, lo, hi) { return Math.min(Math.max(v, lo), hi); }
function finiteOr(v, fallback) { return Number.isFinite(v) ? v : fallback; }
function baseName(p) { return p ? p.slice(p.lastIndexOf("/") + 1) : "?"; }

/* A count for people: grouped digits below 10^15, else 4 significant digits. */
function fmtCount(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  if (Math.abs(v) < 1e15) return Math.round(v).toLocaleString("en-US");
  return v.toPrecision(4);
}

/* A machine model's figure (misses per level, cycles): 4 significant
 * digits as whole counts, as `augur predict` prints cycles; the digits
 * beyond are the model's noise, not information. */
function fmtModel(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return fmtCount(Math.abs(v) < 1e4 ? v : Number(v.toPrecision(4)));
}

/* A leave-one-out error in percent: 2 significant digits, and "below
 * 0.001%" for the rounding noise of exact fits (6.74e-13% said nothing). */
function fmtCvPercent(cv) {
  if (!Number.isFinite(cv)) return "unknown";
  return cv < 1e-3 ? "below 0.001%" : Number(cv.toPrecision(2)) + "%";
}

/* Seconds with a unit and 3 significant digits. */
function fmtSeconds(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return "–";
  const units = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];
  for (const [f, u] of units) if (Math.abs(s) >= f || f === 1e-9) return (s / f).toPrecision(3) + " " + u;
  return String(s);
}

/* An axis tick: 3 significant digits with k, M, G, T suffixes. */
function fmtAxis(v) {
  if (v === null || v === undefined) return "";
  const units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [f, u] of units) if (Math.abs(v) >= f) return +(v / f).toPrecision(3) + u;
  return String(+v.toPrecision(3));
}

function fmtBytes(b) {
  const units = [[1 << 30, "GiB"], [1 << 20, "MiB"], [1 << 10, "KiB"]];
  for (const [f, u] of units) if (b >= f && b % f === 0) return b / f + " " + u;
  return b + " B";
}

/* ---- the models (src/model/model_term.c, rd_model.c) ----------------------------------- */

/* p^e * log2(p)^l as factor_value computes it: 0 for p <= 0. */
function factorValue(p, e, l) {
  let v = 1.0;
  if (e !== 0) v = p > 0 ? Math.pow(p, e) : 0;
  if (l !== 0) {
    const lg = p > 0 ? Math.log2(p) : 0;
    for (let k = 0; k < l; k++) v *= lg;
  }
  return v;
}

/* model_eval: constant + sum of coef * prod factors, at x (parameter values by index). */
function modelEval(m, x) {
  let v = m.c;
  for (const [coef, factors] of m.t) {
    let b = 1.0;
    for (const [p, e, l] of factors) b *= factorValue(x[p], e, l);
    v += coef * b;
  }
  return v;
}

/* A parameter a term is undefined at (p <= 0 under a power or log), or null. */
function outsideDomain(m, x) {
  for (const [, factors] of m.t)
    for (const [p, e, l] of factors) if ((e !== 0 || l !== 0) && !(x[p] > 0)) return p;
  return null;
}

/* model_spread_at: the alternatives' spread at `reach` times the largest fitted value. */
function spreadAt(m, reach) {
  const l = Math.log2(Math.max(reach, 1));
  if (l <= 1) return l * m.spread[0];
  let i = Math.floor(l) - 1;
  if (i > m.spread.length - 2) i = m.spread.length - 2;
  const a = m.spread[i], b = m.spread[i + 1];
  return Math.max(a + (b - a) * (l - (i + 1)), 0);
}

/* predict_count_doubt: the relative uncertainty of a count model at `reach`. */
function countDoubt(m, reach) {
  const g = 1 + Math.log2(Math.max(reach, 1));
  return Math.max(spreadAt(m, reach), m.cv / 100 * g);
}

/* predict_reach: how far x lies outside the fitted range (1 inside). */
function reachOf(x) {
  const s = DATA.models.set;
  let r = 1;
  for (let k = 0; k < s.params.length; k++) {
    const v = x[k], lo = s.lo[k], hi = s.hi[k];
    if (hi > 0 && v > hi) r = Math.max(r, v / hi);
    else if (v > 0 && v < lo) r = Math.max(r, lo / v);
  }
  return r;
}

/* predict_count: a model's value as a count (llround; negatives are 0). */
function asCount(v) { return v > 0 ? Math.round(v) : 0; }

/* weighted_median of rd_model.c: the smallest value where the sorted
 * weight reaches half the total (the mean with the next at exactly half). */
function weightedMedian(v, w) {
  let total = 0, below = 0;
  const pairs = v.map((x, i) => { total += w[i]; return [x, w[i]]; });
  pairs.sort((a, b) => (a[0] > b[0]) - (a[0] < b[0]));
  for (let i = 0; i < pairs.length; i++) {
    below += pairs[i][1];
    if (below >= total / 2)
      return below === total / 2 && i + 1 < pairs.length ? (pairs[i][0] + pairs[i + 1][0]) / 2 : pairs[i][0];
  }
  return pairs[pairs.length - 1][0];
}

/* isotonic of rd_model.c: pool adjacent violators, each block at the
 * weighted median of its original values (not of the levels its parts had). */
function isotonic(v, w) {
  const start = [], orig = v.slice();
  for (let i = 0; i < v.length; i++) {
    start.push(i);
    while (start.length > 1 && v[start[start.length - 2]] > v[start[start.length - 1]]) {
      start.pop();
      const s = start[start.length - 1];
      const level = weightedMedian(orig.slice(s, i + 1), w.slice(s, i + 1));
      for (let k = s; k <= i; k++) v[k] = level;
    }
  }
}

/* model_power of rd_growth.c: the largest power of parameter 0 among the
 * positive terms (0 for a constant). */
function modelPower(m) {
  let p = 0;
  for (const [coef, factors] of m.t)
    for (const [param, exponent] of factors)
      if (coef > 0 && Number.isFinite(coef) && param === 0) p = Math.max(p, exponent);
  return p;
}

/* bounded_eval of rd_model.c: a slice edge with a term of a higher power than
 * the footprint's (m.max_power) grows beyond m.top no faster than p^max_power
 * from its value there. */
function boundedEval(m, edge, x) {
  const v = modelEval(edge, x);
  if (!(m.max_power > 0) || !(x[0] > m.top) || !(modelPower(edge) > m.max_power + 1e-9)) return v;
  const atTop = Math.max(finiteOr(modelEval(edge, [m.top]), 0), 0);
  return Math.min(v, atTop * Math.pow(x[0] / m.top, m.max_power));
}

/* slice_edges_at with the repair: low_0, high_0, low_1, ... made nondecreasing
 * (edges under the growth bound, boundedEval); each slice's mean beside them
 * (not finite: its edges' midpoint before the repair). */
function sliceEdges(m, x) {
  const e = [], w = [], mean = [];
  for (const b of m.bins) {
    const low = Math.max(finiteOr(boundedEval(m, b.low, x), 0), 0);
    const high = Math.max(finiteOr(boundedEval(m, b.high, x), low), low);
    e.push(low, high);
    mean.push(finiteOr(boundedEval(m, b.mean, x), (low + high) / 2));
    const half = Math.max(clamp(b.u_high - b.u_low, 0, 1), 1e-12) / 2;
    w.push(half, half);
  }
  isotonic(e, w);
  return { e, mean };
}

/* above of rd_model.c: the share of a slice [low, high] with mean distance
 * `mean` at or above capacity, spread as closely to evenly as the mean lets. */
function above(low, high, mean, c) {
  if (low >= c) return 1;
  if (high <= c) return 0;
  const t = (c - low) / (high - low), m = (clamp(mean, low, high) - low) / (high - low);
  if (m < 1 / 3) return 3 * m * (1 - t) * (1 - t);
  if (m > 2 / 3) return 3 * (1 - m) * (1 - t * t) + 1 - 3 * (1 - m);
  return (1 - t) + 12 * (m - 0.5) * t * (1 - t) / 2;
}

/* rd_model_misses: misses of a fully-associative LRU cache of `c` blocks at x. */
function rdMisses(m, x, c) {
  const cold = Math.max(finiteOr(modelEval(m.cold, x), 0), 0);
  const touches = Math.max(finiteOr(modelEval(m.touches, x), 0), 0);
  const nlead = m.lead.length;
  const leadAll = nlead ? clamp(modelEval(m.lead[nlead - 1].fraction, x), 0, 1) : 0;
  let misses = cold;
  const all = clamp(leadAll + 0, 0, 1);
  if (nlead && leadAll > 0) {
    let lead = 0, hi = clamp(modelEval(m.lead[nlead - 1].fraction, x), 0, 1);
    for (let i = nlead; i-- > 0;) {
      const lo = i ? clamp(modelEval(m.lead[i - 1].fraction, x), 0, hi) : 0;
      if (m.lead[i].distance >= c) lead += (hi - lo) * touches;
      hi = lo;
    }
    misses += lead * all / leadAll;
  }
  const rest = touches * (1 - all);
  if (m.bins.length) {
    const { e, mean } = sliceEdges(m, x);
    m.bins.forEach((b, i) => {
      misses += clamp(b.u_high - b.u_low, 0, 1) * rest * above(e[2 * i], e[2 * i + 1], mean[i], c);
    });
  }
  return Number.isFinite(misses) ? misses : cold;
}

/* ---- a prediction at x (src/predict/predict.c) ----------------------------------------- */

const COUNT_METRICS = ["instructions", "reads", "writes"];

/* Rows of the models, indexed once: functions by f, lines by file:line:f, scopes by id. */
function indexModels() {
  const ix = { total: {}, functions: new Map(), lines: new Map(), scopes: new Map() };
  if (!DATA.models) return ix;
  for (const r of DATA.models.counts) {
    let map = null, key = null;
    if (r.kind === "function") { map = ix.functions; key = r.f; }
    else if (r.kind === "line") { map = ix.lines; key = r.file + ":" + r.line + ":" + r.f; }
    else if (r.kind === "scope") { map = ix.scopes; key = r.scope; }
    else if (r.kind === "total") { ix.total[r.metric] = r; continue; }
    if (!map) continue;
    if (!map.has(key)) map.set(key, {});
    map.get(key)[r.metric] = r;
  }
  return ix;
}
const MODELS = indexModels();

/* Counts of a row's models at x: {instructions, reads, writes, ...} as
 * counts; a count without a model (a series never modeled) is 0, as predict
 * leaves it. */
function rowCounts(rows, x) {
  const c = { instructions: 0, reads: 0, writes: 0, flops: 0 };
  for (const [metric, r] of Object.entries(rows)) c[metric] = asCount(modelEval(r.model, x));
  return c;
}

/* The first term undefined at x, as a message, or null (predict refuses these). */
function domainError(x) {
  const s = DATA.models.set;
  for (const r of DATA.models.counts) {
    const p = outsideDomain(r.model, x);
    if (p !== null) return `${s.params[p]}=${x[p]} is outside the domain of the models (${r.formula} needs ${s.params[p]} > 0)`;
  }
  return null;
}

/* Misses (a value per cache of DATA.caches) added to a row, by share. */
function addMisses(row, misses, share) {
  if (!row.misses) row.misses = DATA.caches.map(() => 0);
  misses.forEach((m, k) => { if (m !== null) row.misses[k] += share * m; });
}

/* clamp_misses: misses above the row's accesses lowered to them. */
function clampMisses(row) {
  if (!row.misses) return;
  const acc = (row.reads || 0) + (row.writes || 0);
  row.misses = row.misses.map(m => Math.min(m, acc));
}

/* The program module's counts: the sum of its function rows (module_counts). */
function moduleBound(functions) {
  const b = { instructions: Infinity, reads: Infinity, writes: Infinity, flops: Infinity };
  let found = false;
  for (const [f, c] of functions) {
    if (DATA.functions[f].module !== DATA.program) continue;
    if (!found) { b.instructions = b.reads = b.writes = 0; found = true; }
    for (const k of COUNT_METRICS) b[k] += c[k] || 0;
  }
  return b;
}

/* predict_nest_scopes: each scope's counts lowered to its nearest predicted ancestor's. */
function nestScopes(scopes, functions) {
  const parent = new Map(DATA.scopes.map(s => [s.id, s.parent]));
  const mod = moduleBound(functions);
  for (const id of [...scopes.keys()].sort((a, b) => a - b)) {
    const c = scopes.get(id);
    let a = parent.get(id), up = null;
    while (a !== undefined && a >= 0 && !(up = scopes.get(a))) a = parent.get(a);
    up = up || mod;
    for (const k of ["instructions", "reads", "writes", "flops"])
      if (c[k] !== undefined && up[k] !== undefined && c[k] > up[k]) c[k] = up[k];
    if (c.headers !== undefined && c.headers > c.instructions) c.headers = c.instructions;
    if (c.entries !== undefined && c.entries > c.headers) c.entries = c.headers;
  }
}

/* The prediction at x as augur predict --cache makes it for DATA.caches:
 * {total, functions: Map f -> counts, lines: Map key -> counts, scopes: Map id -> counts}. */
function predictAt(x) {
  const p = { x, functions: new Map(), lines: new Map(), scopes: new Map(),
              total: { instructions: 0, reads: 0, writes: 0 } };
  for (const [f, rows] of MODELS.functions) p.functions.set(f, rowCounts(rows, x));
  for (const [k, rows] of MODELS.lines) p.lines.set(k, rowCounts(rows, x));
  for (const [id, rows] of MODELS.scopes) p.scopes.set(id, rowCounts(rows, x));
  for (const c of p.functions.values()) for (const k of COUNT_METRICS) p.total[k] += c[k] || 0;
  const caps = DATA.caches.map(c => c.size / c.line);
  for (const g of DATA.models.groups) {
    const misses = DATA.caches.map((c, k) => c.line === g.block ? rdMisses(g.model, x, caps[k]) : null);
    addMisses(p.total, misses, 1);
    for (const [f, lf, file, line, share] of g.members) {
      const l = lf >= 0 ? p.lines.get(file + ":" + line + ":" + lf) : null;
      if (l) addMisses(l, misses, share);
      const fn = p.functions.get(f);
      if (fn) addMisses(fn, misses, share);
    }
  }
  for (const c of p.functions.values()) clampMisses(c);
  for (const c of p.lines.values()) clampMisses(c);
  clampMisses(p.total);
  nestScopes(p.scopes, p.functions);
  return p;
}

/* ---- a measured run, in the same shape ----------------------------------------------- */

function runView(run) {
  const v = { functions: new Map(), lines: new Map(), scopes: new Map(),
              total: { instructions: 0, reads: 0, writes: 0 } };
  for (const [f, ins, r, w] of run.counts.functions) {
    v.functions.set(f, { instructions: ins, reads: r, writes: w });
    v.total.instructions += ins; v.total.reads += r; v.total.writes += w;
  }
  for (const [file, line, f, ins, r, w, misses] of run.counts.lines)
    v.lines.set(file + ":" + line + ":" + f, { instructions: ins, reads: r, writes: w, misses });
  for (const [id, ins, r, w, flops, headers, entries] of run.counts.scopes)
    v.scopes.set(id, { instructions: ins, reads: r, writes: w, flops, headers, entries });
  return v;
}

/* ---- state ------------------------------------------------------------------------------ */

const state = {
  view: DATA.models ? "prediction" : "run:" + DATA.runs[DATA.runs.length - 1].id,
  x: [],            /* parameter values of the prediction */
  machine: 0,
  tab: "scopes",
  subject: { kind: "total" },
  metric: "instructions",
  axis: 0,
  file: 0,
  showAll: false,
};

/* The grid axis values of parameter k (the grid's points along k). */
function gridAxis(k) {
  if (!DATA.models) return [];
  const hi = DATA.models.set.hi;
  return DATA.models.grid.filter(g => g.x.every((v, j) => j === k || v === hi[j])).map(g => g.x[k])
    .filter((v, i, a) => a.indexOf(v) === i).sort((a, b) => a - b);
}

/* The grid point nearest x (in log distance) and whether it is x itself. */
function nearestGrid(x) {
  let best = null, bestD = Infinity;
  for (const g of DATA.models.grid) {
    let d = 0;
    g.x.forEach((v, k) => { d += Math.abs(Math.log(Math.max(v, 1e-300) / Math.max(x[k], 1e-300))); });
    if (d < bestD) { bestD = d; best = g; }
  }
  return { point: best, exact: best && best.x.every((v, k) => v === x[k]) };
}

/* What the page shows now: counts (predicted or measured) and the machine's values. */
function current() {
  if (state.view === "prediction") {
    const err = domainError(state.x);
    if (err) return { error: err };
    const p = predictAt(state.x);
    const g = nearestGrid(state.x);
    p.machine = g.point ? g.point.machines[state.machine] : null;
    p.gridPoint = g;
    return p;
  }
  const run = DATA.runs.find(r => "run:" + r.id === state.view);
  const v = runView(run);
  v.machine = run.machines[state.machine];
  v.run = run;
  return v;
}

/* ---- controls --------------------------------------------------------------------------- */

function paramText(x) {
  return DATA.models.set.params.map((n, k) => `${n}=${x[k]}`).join(", ");
}

function setupControls() {
  const view = document.getElementById("view");
  if (DATA.models) view.append(new Option("Prediction (models)", "prediction"));
  for (const r of DATA.runs)
    view.append(new Option(`Run ${r.id}: ` + Object.entries(r.params).map(([k, v]) => `${k}=${v}`).join(", "),
                           "run:" + r.id));
  view.value = state.view;
  view.onchange = () => { state.view = view.value; render(); };
  const msel = document.getElementById("machine");
  DATA.machines.forEach((m, i) => msel.append(new Option(m.name, i)));
  msel.onchange = () => { state.machine = +msel.value; render(); };
  if (DATA.models) setupSliders();
  setupTableTabs();
  setupChartControls();
  setupSource();
}

/* One slider per parameter over its grid values, and a box for any value. */
function setupSliders() {
  const box = document.getElementById("params");
  const s = DATA.models.set;
  s.params.forEach((name, k) => {
    const axis = gridAxis(k);
    let start = axis.findIndex(v => v >= 4 * s.hi[k]);
    if (start < 0) start = axis.length - 1;
    state.x[k] = axis[start];
    const wrap = el("span", null, "param");
    wrap.append(el("span", name + " ="));
    const range = el("input");
    Object.assign(range, { type: "range", min: 0, max: axis.length - 1, step: 1, value: start, id: "slider-" + name });
    const num = el("input");
    Object.assign(num, { type: "number", value: axis[start], id: "value-" + name, min: 0 });
    range.oninput = () => { state.x[k] = axis[+range.value]; num.value = state.x[k]; state.view = "prediction";
                            document.getElementById("view").value = "prediction"; render(); };
    num.onchange = () => { const v = Number(num.value); if (Number.isFinite(v) && v > 0) { state.x[k] = v;
                            state.view = "prediction"; document.getElementById("view").value = "prediction"; render(); } };
    wrap.append(range, num);
    box.append(wrap);
  });
}

function setupTableTabs() {
  for (const tab of ["scopes", "functions"]) {
    document.getElementById("tab-" + tab).onclick = () => {
      state.tab = tab;
      document.querySelectorAll(".tabs button").forEach(b => b.classList.toggle("on", b.id === "tab-" + tab));
      renderTable(current());
    };
  }
  document.getElementById("show-all").onchange = e => { state.showAll = e.target.checked; renderTable(current()); };
}

function setupChartControls() {
  const metric = document.getElementById("metric");
  for (const m of ["instructions", "reads", "writes", "flops", "headers", "entries"]) metric.append(new Option(m, m));
  metric.onchange = () => { state.metric = metric.value; renderModel(current()); };
  const axis = document.getElementById("axis");
  (DATA.models ? DATA.models.set.params : []).forEach((p, k) => axis.append(new Option(p, k)));
  axis.onchange = () => { state.axis = +axis.value; renderModel(current()); };
  document.getElementById("logscale").onchange = () => { renderModel(current()); renderHistogram(); };
}

/* ---- rendering: header, notes, totals ---------------------------------------------------- */

function renderHeader() {
  document.getElementById("program").textContent = DATA.program || "";
  const set = DATA.models ? `model set ${DATA.models.set.id} of ${DATA.models.set.created}` : "no models";
  document.getElementById("meta").textContent =
    `${DATA.database} · ${DATA.runs.length} runs · ${set} · augur ${DATA.augur_version}`;
  const notes = document.getElementById("notes");
  for (const n of DATA.notes) notes.append(el("li", n));
}

function card(k, v, id) {
  const c = el("div", null, "card");
  c.append(el("div", k, "k"));
  const value = el("div", v, "v");
  if (id) value.id = id;
  c.append(value);
  return c;
}

function machineOf() { return DATA.machines[state.machine]; }

function renderTotals(cur) {
  const box = document.getElementById("totals");
  box.replaceChildren();
  if (cur.error) { box.append(card("prediction refused", cur.error)); return; }
  const t = cur.total;
  box.append(card("instructions", fmtCount(t.instructions), "total-instructions"),
             card("accesses", fmtCount(t.reads + t.writes), "total-accesses"));
  const m = cur.machine;
  if (m && !m.error) {
    for (const [lv, v] of Object.entries(m.total.misses || {})) box.append(card(lv + " misses", fmtModel(v), "total-misses-" + lv));
    box.append(card("cycles", fmtModel(m.total.cycles), "total-cycles"),
               card("time on " + machineOf().name, fmtSeconds(m.total.time_seconds), "total-time"),
               card("bound", m.total.bound));
  } else if (m && m.error) box.append(card("machine models", m.error));
  const note = document.getElementById("grid-note");
  note.textContent = cur.gridPoint && !cur.gridPoint.exact
    ? `machine values (misses per level, cycles, time) at the nearest grid point ${paramText(cur.gridPoint.point.x)}` : "";
}

/* ---- rendering: scopes and functions ---------------------------------------------------- */

function levelNames() { return machineOf().levels.map(l => l.name); }

/* The machine values of loops by scope id, and of functions by index. */
function machineRows(cur) {
  const loops = new Map(), functions = new Map();
  if (cur.machine && !cur.machine.error) {
    for (const l of cur.machine.loops) loops.set(l.scope, l);
    for (const f of cur.machine.functions) functions.set(f.f, f);
  }
  return { loops, functions };
}

/* The index of the program's function `name` in DATA.functions, or -1:
 * a function scope's machine values are its function row's. */
const PROGRAM_FUNCTIONS = new Map(DATA.functions.map((f, i) => [f.module === DATA.program ? f.name : null, i]));
function programFunction(name) { return PROGRAM_FUNCTIONS.has(name) ? PROGRAM_FUNCTIONS.get(name) : -1; }

/* Scopes in tree order with their depth. */
function scopeOrder() {
  const kids = new Map();
  for (const s of DATA.scopes) {
    if (!kids.has(s.parent)) kids.set(s.parent, []);
    kids.get(s.parent).push(s);
  }
  const out = [];
  const walk = (s, depth) => { out.push([s, depth]); for (const c of kids.get(s.id) || []) walk(c, depth + 1); };
  for (const root of kids.get(-1) || []) walk(root, 0);
  return out;
}
const SCOPE_ORDER = scopeOrder();

function headerRow(table, cols) {
  const tr = el("tr");
  for (const c of cols) tr.append(el("th", c));
  table.append(tr);
}

function selectRow(tr, subject) {
  tr.onclick = () => {
    state.subject = subject;
    document.querySelectorAll("#table tr.sel").forEach(r => r.classList.remove("sel"));
    tr.classList.add("sel");
    renderModel(current());
    renderHistogram();
  };
}

function renderTable(cur) {
  const table = document.getElementById("table");
  table.replaceChildren();
  if (cur.error) return;
  const mrows = machineRows(cur), levels = levelNames();
  const cols = ["name", "instructions", "accesses", ...levels.map(l => l + " misses"), "cycles", "time", "bound"];
  if (state.tab === "scopes") cols.push("iter/entry");
  headerRow(table, cols);
  const total = cur.total.instructions || 1;
  let shown = 0;
  if (state.tab === "scopes") {
    for (const [s, depth] of SCOPE_ORDER) {
      const c = cur.scopes.get(s.id);
      if (!c || (!state.showAll && (c.instructions < 1e-3 * total || shown >= TABLE_ROWS))) continue;
      const m = s.kind === "function" ? mrows.functions.get(programFunction(s.name)) : mrows.loops.get(s.id);
      const label = s.kind === "loop" ? s.name : `${s.name}`;
      const tr = row(label, s.kind, depth, c, m, levels);
      tr.append(el("td", c.entries ? (c.headers / c.entries).toFixed(1) : ""));
      tr.dataset.scope = s.id;
      selectRow(tr, { kind: "scope", id: s.id, name: label });
      table.append(tr);
      shown++;
    }
  } else {
    const fs = [...cur.functions.entries()].sort((a, b) => b[1].instructions - a[1].instructions);
    for (const [f, c] of fs) {
      if (!state.showAll && shown >= TABLE_ROWS) break;
      const fn = DATA.functions[f];
      const tr = row(fn.name, baseName(fn.module), 0, c, mrows.functions.get(f), levels);
      tr.dataset.function = f;
      selectRow(tr, { kind: "function", id: f, name: fn.name });
      table.append(tr);
      shown++;
    }
  }
}

/* One table row: name (indented), counts and the machine's values. */
function row(name, kind, depth, c, m, levels) {
  const tr = el("tr");
  const td = el("td", null, "name");
  td.style.paddingLeft = 6 + 14 * depth + "px";
  td.title = name;
  td.append(el("span", kind + " ", "kind"), el("span", name));
  tr.append(td, el("td", fmtCount(c.instructions)), el("td", fmtCount((c.reads || 0) + (c.writes || 0))));
  for (const lv of levels) tr.append(el("td", m && m.misses ? fmtModel(m.misses[lv]) : ""));
  tr.append(el("td", m ? fmtModel(m.cycles) : ""), el("td", m ? fmtSeconds(m.time_seconds) : ""),
            el("td", m ? m.bound : "", "bound"));
  return tr;
}

/* ---- rendering: the model plot ------------------------------------------------------------ */

/* The model rows of the selected subject, by metric. */
function subjectModels() {
  const s = state.subject;
  if (s.kind === "total") return MODELS.total;
  if (s.kind === "function") return MODELS.functions.get(s.id) || {};
  if (s.kind === "scope") return MODELS.scopes.get(s.id) || {};
  if (s.kind === "line") return MODELS.lines.get(s.id) || {};
  return {};
}

/* The subject's measured value of metric in run. */
function measured(run, metric) {
  const v = runView(run), s = state.subject;
  const c = s.kind === "total" ? v.total : s.kind === "function" ? v.functions.get(s.id)
    : s.kind === "scope" ? v.scopes.get(s.id) : v.lines.get(s.id);
  return c && c[metric] !== undefined ? c[metric] : null;
}

let modelChart = null, histChart = null;

function chartWidth(id) { return Math.max(document.getElementById(id).clientWidth - 10, 300); }

function renderModel(cur) {
  const s = state.subject, rows = subjectModels();
  document.getElementById("subject").textContent = s.kind === "total" ? "(the program: pick a row)" : `of ${s.name}`;
  const formula = document.getElementById("formula");
  formula.replaceChildren();
  const box = document.getElementById("model-chart");
  if (modelChart) { modelChart.destroy(); modelChart = null; }
  box.replaceChildren();
  const r = rows[state.metric];
  if (!DATA.models) { formula.append(el("span", "No models: " + DATA.notes[DATA.notes.length - 1], "err")); return; }
  if (!r) {
    formula.append(el("span", s.kind === "total" ? "Pick a scope or function to see its models."
      : `No model of ${state.metric} for this subject.`, "err"));
    if (s.kind === "total") return;
  } else {
    formula.append(el("div", `${state.metric} = ${r.formula}`));
    formula.append(el("div", `${r.model.method}, fitted on ${r.model.n} runs, leave-one-out error ${fmtCvPercent(r.model.cv)}` +
      (r.model.unconfirmed ? " — exact through as many runs as coefficients: collect one more size to confirm it" : ""), "muted"));
  }
  plotModel(box, r, cur);
}

/* The measured points, the curve within the fitted range, its extrapolation and the range band. */
function plotModel(box, r, cur) {
  const k = state.axis, set = DATA.models.set, log = document.getElementById("logscale").checked;
  const base = state.x.slice();
  const lo = set.lo[k] / 2, hi = Math.max(set.hi[k] * 16, state.x[k] * 1.5);
  const xs = [];
  for (let i = 0; i < CURVE_POINTS; i++) xs.push(log ? lo * Math.pow(hi / lo, i / (CURVE_POINTS - 1)) : lo + (hi - lo) * i / (CURVE_POINTS - 1));
  const pts = DATA.runs.map(run => [run.params[set.params[k]], measured(run, state.metric)]).filter(p => p[1] !== null);
  const allX = [...new Set([...xs, ...pts.map(p => p[0]), state.x[k]])].sort((a, b) => a - b);
  const fit = [], extra = [], low = [], high = [], meas = [], now = [];
  for (const xv of allX) {
    const x = base.slice(); x[k] = xv;
    const v = r ? modelEval(r.model, x) : null;
    const d = r ? countDoubt(r.model, reachOf(x)) : 0;
    const inside = xv >= set.lo[k] && xv <= set.hi[k];
    fit.push(inside ? v : null);
    extra.push(xv >= set.hi[k] || xv <= set.lo[k] ? v : null);
    low.push(v === null ? null : Math.max(v * Math.max(1 - d, 0), log ? 1e-9 : 0));
    high.push(v === null ? null : v * (1 + d));
    const p = pts.find(q => q[0] === xv);
    meas.push(p ? p[1] : null);
    now.push(xv === state.x[k] && v !== null ? v : null);
  }
  const opts = {
    width: chartWidth("chart-panel"), height: 260,
    scales: { x: { time: false, distr: log ? 3 : 1 }, y: { distr: log ? 3 : 1 } },
    axes: [{ label: set.params[k] }, { size: 64, values: (u, vals) => vals.map(fmtAxis) }],
    series: [
      {},
      { label: "range low", stroke: "rgba(66,120,200,0.25)", width: 1 },
      { label: "range high", stroke: "rgba(66,120,200,0.25)", width: 1 },
      { label: "model (fitted range)", stroke: "#2460b8", width: 2 },
      { label: "extrapolation", stroke: "#2460b8", width: 2, dash: [6, 4] },
      { label: "measured runs", stroke: "#d9534f", width: 0, points: { show: true, size: 8, fill: "#d9534f" } },
      { label: "at the sliders", stroke: "#222", width: 0, points: { show: true, size: 9, fill: "#fff" } },
    ],
    bands: [{ series: [2, 1], fill: "rgba(66,120,200,0.12)" }],
    legend: { live: false },
  };
  modelChart = new uPlot(opts, [allX, low, high, fit, extra, meas, now], box);
}

/* ---- rendering: reuse-distance histograms ------------------------------------------------- */

/* The innermost loop of the subject (itself, or null). */
function subjectLoop() {
  const s = state.subject;
  return s.kind === "scope" ? DATA.scopes.find(q => q.id === s.id && q.kind === "loop") : null;
}

function renderHistogram() {
  const box = document.getElementById("hist-chart");
  if (histChart) { histChart.destroy(); histChart = null; }
  box.replaceChildren();
  const loop = subjectLoop(), m = machineOf(), block = m.levels[0].line;
  const run = DATA.runs.find(r => "run:" + r.id === state.view) || DATA.runs[DATA.runs.length - 1];
  const label = document.getElementById("hist-subject");
  if (!loop) { label.textContent = ""; box.append(el("div", "Pick a loop to see its reuse distances.", "muted")); return; }
  const hs = (run.histograms[String(block)] || []).find(h => h.scope === loop.id);
  label.textContent = `of ${loop.name}, run ${run.id}, ${block}-byte lines`;
  if (!hs || !hs.bins.length) { box.append(el("div", "No reuse of this loop's memory accesses in this run.", "muted")); return; }
  /* each bin a step at its accesses per distance; a gap (null) where no bin follows at once */
  const xs = [], ys = [];
  hs.bins.forEach(([lo, hi, count], i) => {
    xs.push(Math.max(lo, 0.5)); ys.push(count / Math.max(hi - lo, 1));
    const next = hs.bins[i + 1];
    if (!next || next[0] !== hi) { xs.push(hi); ys.push(null); }
  });
  const caps = m.levels.filter(l => l.line === block).map(l => [l.name, l.size / l.line]);
  const opts = {
    width: chartWidth("chart-panel"), height: 220,
    /* the x range holds every capacity, so each level is marked */
    scales: { x: { time: false, distr: 3, range: (u, lo, hi) => [0.5, Math.max(hi, ...caps.map(c => 2 * c[1]))] },
              y: { distr: document.getElementById("logscale").checked ? 3 : 1 } },
    legend: { live: false },
    axes: [{ label: "reuse distance (distinct lines)", values: (u, vals) => vals.map(fmtAxis) },
           { label: "accesses per distance", size: 64, values: (u, vals) => vals.map(fmtAxis) }],
    series: [{}, { label: `accesses (cold: ${fmtCount(hs.cold)})`, stroke: "#2a7d4f", fill: "rgba(42,125,79,0.2)",
                   paths: uPlot.paths.stepped({ align: 1 }) }],
    hooks: { draw: [u => drawCapacities(u, caps)] },
  };
  histChart = new uPlot(opts, [xs, ys], box);
}

/* A vertical line and label at each cache capacity (in lines) of the machine. */
function drawCapacities(u, caps) {
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = "#b8321f"; ctx.fillStyle = "#b8321f"; ctx.lineWidth = 1.5;
  ctx.font = `${12 * devicePixelRatio}px system-ui`;
  for (const [name, c] of caps) {
    const x = u.valToPos(c, "x", true);
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
    ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
    ctx.fillText(name, x + 3, u.bbox.top + 14 * devicePixelRatio);
  }
  ctx.restore();
}

/* ---- rendering: the source ---------------------------------------------------------------- */

const FILES = DATA.files.map((f, i) => ({ ...f, index: i })).filter(f => f.text !== null);

function setupSource() {
  const sel = document.getElementById("file");
  FILES.forEach((f, i) => sel.append(new Option(baseName(f.path), i)));
  sel.onchange = () => { state.file = +sel.value; renderSource(current()); };
  const bar = document.getElementById("bar-metric");
  bar.onchange = () => renderSource(current());
}

/* Counts per line of the file: summed over the rows (functions) of one line. */
function lineCounts(cur, file) {
  const per = new Map();
  for (const [key, c] of cur.lines) {
    const [f, line] = key.split(":").map(Number);
    if (f !== file) continue;
    const t = per.get(line) || { instructions: 0, reads: 0, writes: 0, misses: DATA.caches.map(() => 0) };
    t.instructions += c.instructions || 0; t.reads += c.reads || 0; t.writes += c.writes || 0;
    (c.misses || []).forEach((m, k) => { if (m !== null) t.misses[k] += m; });
    per.set(line, t);
  }
  return per;
}

let sourceObserver = null;

function renderSource(cur) {
  const table = document.getElementById("source"), note = document.getElementById("file-note");
  table.replaceChildren();
  if (sourceObserver) sourceObserver.disconnect();
  if (!FILES.length || cur.error) { note.textContent = "No source file of the program could be read."; return; }
  const f = FILES[state.file];
  note.textContent = f.path;
  const levels = machineOf().levels.filter(l => l.cache >= 0);
  const bar = document.getElementById("bar-metric");
  const choice = bar.value || "instructions";
  bar.replaceChildren(new Option("instructions", "instructions"), new Option("accesses", "accesses"),
                      ...levels.map(l => new Option(l.name + " misses", "cache:" + l.cache)));
  bar.value = choice;
  const per = lineCounts(cur, f.index);
  const value = c => choice === "instructions" ? c.instructions : choice === "accesses" ? c.reads + c.writes
    : c.misses[+choice.slice(6)];
  let max = 0;
  for (const c of per.values()) max = Math.max(max, value(c));
  headerRow(table, ["line", "instructions", "accesses", ...levels.map(l => `${l.name} (FA ${fmtBytes(l.size)})`), "", "source"]);
  const lines = f.text.split("\n");
  let next = 0;
  const more = () => {
    const end = Math.min(next + SOURCE_CHUNK, lines.length);
    for (; next < end; next++) table.append(sourceRow(next + 1, lines[next], per.get(next + 1), levels, value, max));
    if (next < lines.length) {
      /* a row with height, so that the observer sees it come into view */
      const s = el("tr", null, "sentinel"), td = el("td", `… lines ${next + 1} to ${lines.length} follow`, "muted");
      td.colSpan = 6 + levels.length;
      s.append(td);
      table.append(s);
      sourceObserver.observe(s);
    }
  };
  sourceObserver = new IntersectionObserver(entries => {
    for (const e of entries) if (e.isIntersecting) { sourceObserver.unobserve(e.target); e.target.remove(); more(); }
  });
  more();
}

function sourceRow(n, text, c, levels, value, max) {
  const tr = el("tr");
  tr.append(el("td", n, "muted"));
  tr.append(el("td", c ? fmtCount(c.instructions) : ""), el("td", c ? fmtCount(c.reads + c.writes) : ""));
  for (const l of levels) tr.append(el("td", c ? fmtCount(c.misses[l.cache]) : ""));
  const bar = el("td", null, "bar"), span = el("span");
  const share = c && max > 0 ? value(c) / max : 0;
  span.style.width = (100 * share).toFixed(1) + "%";
  bar.append(span);
  tr.append(bar, el("td", text, "code"));
  if (share > 0.1) tr.className = "hot";
  tr.dataset.line = n;
  return tr;
}

/* ---- rendering: memspy ---------------------------------------------------------------------- */

function renderMemspy() {
  const ms = DATA.memspy;
  if (!ms) return;
  document.getElementById("memspy-panel").hidden = false;
  const box = document.getElementById("memspy");
  const args = (ms.args || []).join(" ");
  box.append(el("div", `${ms.program} ${args} on ${ms.machine ? ms.machine.name : "?"}: ${fmtCount(ms.total.references)} references, ` +
    `stall ${fmtCount(ms.total.stall_cycles)} cycles`, "muted"));
  const causes = ["cold", "capacity", "conflict", "true_sharing", "false_sharing"];
  const table = (title, rows, name) => {
    box.append(el("h3", title));
    const t = el("table");
    headerRow(t, ["name", "references", "L1 misses", ...causes, "stall %"]);
    for (const r of rows.slice(0, 15)) {
      const tr = el("tr");
      tr.append(el("td", name(r), "name"), el("td", fmtCount(r.references)), el("td", fmtCount(r.misses)));
      for (const c of causes) tr.append(el("td", fmtCount(r.causes ? r.causes[c] : null)));
      tr.append(el("td", r.stall_percent !== undefined ? Number(r.stall_percent).toFixed(1) : ""));
      t.append(tr);
    }
    box.append(t);
  };
  table("Data objects, most stall first", ms.data_objects || [], r => `${r.name} (${r.kind})`);
  table("Code objects", ms.code_objects || [], r => r.kind === "loop" ? r.name : `${r.kind} ${r.name}`);
  table("Code x data pairs", ms.pairs || [], r => `${r.function} × ${r.data_object}`);
}

/* ---- the whole ------------------------------------------------------------------------------ */

function render() {
  const cur = current();
  renderTotals(cur);
  renderTable(cur);
  renderModel(cur);
  renderHistogram();
  renderSource(cur);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
}

renderHeader();
setupControls();
renderMemspy();
render();

/* For tests and scripts: the prediction at parameter values, as the page computes it. */
window.augurExplore = { predictAt: x => predictAt(x), current: () => current(), data: DATA, state };
