// check_page.mjs — opens a page of `augur explore` in headless Chromium
// (Debian's /usr/bin/chromium, driven over the DevTools protocol by
// playwright-core; nothing downloads a browser) and checks it against
// augur itself (tests/integration/test_explore_page.sh runs it):
//   - no console error or warning, no uncaught exception, no request
//     beyond the file itself (the page is self-contained);
//   - names with HTML special characters shown as text, nothing injected;
//   - the prediction the page computes in the browser at a parameter value
//     off the machine grid (typed into the box) agrees with `augur predict
//     --show-startup --cache` (every row; the machines' levels, fully
//     associative) to 6 significant
//     digits: total, every function, every line of the embedded files and
//     every scope, counts and misses;
//   - moving the slider changes the shown values to augur predict's at the
//     new value, the machine models' cycles and time to predict --machine's;
//   - the machine selector and a run's view show predict --machine's and
//     augur report's numbers;
//   - a long source file is rendered lazily, in chunks, as it scrolls;
//   - then a screenshot.
// usage: node check_page.mjs CONFIG.json, CONFIG holding {augur, db, page,
//   screenshot, special_function, injected_path, loop, memspy: bool,
//   no_models_page}.  Prints one ok/FAIL line per check and
//   "N passed, N failed"; exits 1 on a failure.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
let passed = 0, failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++; else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
}

/* a and b agree to 6 significant digits (or both below 1e-6). */
function agree(a, b) {
  if (a === null || b === null || a === undefined || b === undefined) return false;
  return Math.abs(a - b) <= 5e-7 * Math.max(Math.abs(a), Math.abs(b)) || Math.abs(a - b) < 1e-6;
}

function augur(...args) {
  return JSON.parse(execFileSync(cfg.augur, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"],
                                                    maxBuffer: 1 << 28 }));
}

/* The page's text of a count (explore.js fmtCount), and of a machine
 * model's figure (fmtModel: 4 significant digits). */
function fmtCount(v) { return Math.round(v).toLocaleString("en-US"); }
function fmtModel(v) { return fmtCount(Math.abs(v) < 1e4 ? v : Number(v.toPrecision(4))); }

async function open(browser, path) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on("console", m => { if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`); });
  page.on("pageerror", e => problems.push("exception: " + e.message));
  page.on("request", r => { if (!r.url().startsWith("file:")) problems.push("request: " + r.url()); });
  await page.goto("file://" + path);
  await page.waitForFunction(() => Number(document.body.dataset.rendered) >= 1);
  return { page, problems };
}

const text = (page, sel) => page.$eval(sel, e => e.textContent);

/* Compare the page's prediction at x with augur predict's JSON; returns rows compared. */
async function comparePrediction(page, x, want, label) {
  const got = await page.evaluate(x => {
    const E = window.augurExplore, D = E.data, p = E.predictAt(x);
    const fn = f => D.functions[f];
    return {
      caches: D.caches.map(c => c.size + ":" + c.line),
      total: p.total,
      functions: [...p.functions].map(([f, c]) => ({ name: fn(f).name, module: fn(f).module, c })),
      lines: [...p.lines].map(([k, c]) => { const [file, line, f] = k.split(":").map(Number);
                                           return { file: D.files[file].path, line, name: fn(f).name, c }; }),
      scopes: [...p.scopes].map(([id, c]) => ({ id, c })),
    };
  }, x);
  const bad = [];
  const same = (what, g, w) => {
    for (const m of ["instructions", "reads", "writes"])
      if (!agree(g[m], w[m])) bad.push(`${what} ${m}: page ${g[m]}, augur ${w[m]}`);
    if (w.misses) got.caches.forEach((key, k) => {
      if (!agree(g.misses ? g.misses[k] : 0, w.misses[key])) bad.push(`${what} misses ${key}: page ${g.misses && g.misses[k]}, augur ${w.misses[key]}`);
    });
  };
  same("total", got.total, want.total);
  // augur names an unknown function null; the page's table "(unknown)" (explore_names.c)
  const wf = new Map(want.functions.map(f => [(f.function ?? "(unknown)") + "\x1f" + f.module, f]));
  for (const f of got.functions) {
    const w = wf.get(f.name + "\x1f" + f.module);
    if (!w) bad.push(`function ${f.name}: not in augur predict`); else same("function " + f.name, f.c, w);
  }
  const files = new Set(got.lines.map(l => l.file));
  const wl = new Map(want.lines.map(l => [l.file + ":" + l.line + ":" + l.function, l]));
  const gl = new Set(got.lines.map(l => l.file + ":" + l.line + ":" + l.name));
  for (const l of got.lines) {
    const w = wl.get(l.file + ":" + l.line + ":" + l.name);
    if (!w) bad.push(`line ${l.file}:${l.line}: not in augur predict`); else same(`line ${l.line}`, l.c, w);
  }
  for (const w of want.lines) if (files.has(w.file) && !gl.has(w.file + ":" + w.line + ":" + w.function))
    bad.push(`line ${w.file}:${w.line} of augur predict missing from the page`);
  const ws = new Map(want.scopes.map(s => [s.scope, s]));
  for (const s of got.scopes) {
    const w = ws.get(s.id);
    if (!w) { bad.push(`scope ${s.id}: not in augur predict`); continue; }
    for (const m of ["instructions", "reads", "writes", "flops"])
      if (!agree(s.c[m], w[m])) bad.push(`scope ${s.id} ${m}: page ${s.c[m]}, augur ${w[m]}`);
  }
  const n = got.functions.length + got.lines.length + got.scopes.length;
  check(`${label}: the page's prediction = augur predict's to 6 digits (${got.functions.length} functions, ` +
        `${got.lines.length} lines, ${got.scopes.length} scopes)`, bad.length === 0 && got.lines.length > 0 &&
        got.scopes.length > 0, bad.slice(0, 5).join("; "));
  return n;
}

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const { page, problems } = await open(browser, cfg.page);
const data = await page.evaluate(() => window.augurExplore.data);
const param = data.models.set.params[0];
const caches = data.caches.map(c => `--cache=${c.size}:${c.line}`);

// ---- names and escaping
check("program shown", (await text(page, "#program")) === data.program, data.program);
check("nothing injected by a path holding </script><b id=injected>", await page.$("#injected") === null);
const paths = await page.$$eval("#file option", os => os.map(o => o.textContent));
await page.selectOption("#file", { label: paths.find(p => p === cfg.source_base) || paths[0] });
const notePath = await text(page, "#file-note");
check("the source path with HTML special characters shown as text", notePath === cfg.injected_path, notePath);
await page.click("#tab-functions");
const names = await page.$$eval("#table td.name", tds => tds.map(td => td.title));
check("a C++ name with <, > and & shown as text", names.includes(cfg.special_function), cfg.special_function);
await page.click("#tab-scopes");
const scopes = await page.$$eval("#table td.name", tds => tds.map(td => td.title));
check("the scope tree shows " + cfg.loop, scopes.includes(cfg.loop), scopes.slice(0, 6).join(" | "));

// ---- a value off the grid, typed in: the browser's evaluation against augur predict
const grid = data.models.grid.map(g => g.x[0]);
const off = Math.round(grid[grid.length - 1] * 0.77) + 1;
check("the typed value is off the machine grid", !grid.includes(off), `${param}=${off}, grid ${grid.join(" ")}`);
await page.fill(`#value-${param}`, String(off));
await page.dispatchEvent(`#value-${param}`, "change");
const offWant = augur("predict", "--db", cfg.db, "--param", `${param}=${off}`, "--show-startup", ...caches, "--format", "json", "--top", "0");
check(`total instructions shown at ${param}=${off} are augur predict's`,
      (await text(page, "#total-instructions")) === fmtCount(offWant.total.instructions),
      `${await text(page, "#total-instructions")} vs ${offWant.total.instructions}`);
await comparePrediction(page, [off], offWant, `${param}=${off}`);
check("off the grid, the page names the grid point its machine values are from",
      (await text(page, "#grid-note")).includes("nearest grid point"));

// ---- the slider: one step left, to a grid value
const before = await text(page, "#total-instructions");
await page.focus(`#slider-${param}`);
await page.keyboard.press("ArrowLeft");
const at = Number(await page.inputValue(`#value-${param}`));
check("the slider moved to a grid value", grid.includes(at) && at !== off, String(at));
const after = await text(page, "#total-instructions");
check("moving the slider changes the instructions", after !== before, `${before} -> ${after}`);
const gridWant = augur("predict", "--db", cfg.db, "--param", `${param}=${at}`, "--show-startup", ...caches, "--format", "json", "--top", "0");
check(`after the slider, the instructions are augur predict's at ${param}=${at}`,
      after === fmtCount(gridWant.total.instructions), `${after} vs ${gridWant.total.instructions}`);
await comparePrediction(page, [at], gridWant, `${param}=${at}`);
for (const [i, m] of data.machines.entries()) {
  await page.selectOption("#machine", String(i));
  const want = augur("predict", "--db", cfg.db, "--param", `${param}=${at}`, "--machine", m.name, "--format", "json", "--top", "0");
  const got = await page.evaluate(() => window.augurExplore.current().machine.total);
  check(`${m.name} at ${param}=${at}: cycles, time and misses per level are predict --machine's`,
        agree(got.cycles, want.total.cycles) && agree(got.time_seconds, want.total.time_seconds) &&
        Object.keys(want.total.misses).every(l => agree(got.misses[l], want.total.misses[l])),
        `${got.cycles} vs ${want.total.cycles}`);
  check(`${m.name}: the cycles card shows them`, (await text(page, "#total-cycles")) === fmtModel(want.total.cycles));
  const loops = await page.evaluate(() => window.augurExplore.current().machine.loops);
  const wantLoops = new Map(want.scopes.filter(s => s.kind === "loop" && s.cycles !== undefined).map(s => [s.scope, s]));
  check(`${m.name}: every loop's cycles and bound are predict --machine's`, loops.length === wantLoops.size &&
        loops.every(l => wantLoops.has(l.scope) && agree(l.cycles, wantLoops.get(l.scope).cycles) &&
                         l.bound === wantLoops.get(l.scope).bound), `${loops.length} loops`);
}
await page.selectOption("#machine", "0");

// ---- a run's view
const run = data.runs[data.runs.length - 1];
await page.selectOption("#view", "run:" + run.id);
const report = augur("report", "--db", cfg.db, "--run", String(run.id), "--format", "json", "--top", "0");
check(`run ${run.id}: instructions shown are augur report's`,
      (await text(page, "#total-instructions")) === fmtCount(report.total.instructions));
const rm = augur("report", "--db", cfg.db, "--run", String(run.id), "--machine", data.machines[0].name, "--format", "json", "--top", "0");
check(`run ${run.id}: cycles shown are augur report --machine's`, (await text(page, "#total-cycles")) === fmtModel(rm.total.cycles));

// ---- a loop's histogram, lazily rendered source, memspy
await page.click(`#table td.name[title="${cfg.loop}"]`);
check("a loop's reuse-distance histogram is drawn", await page.$("#hist-chart canvas") !== null,
      await text(page, "#hist-subject"));
const big = paths.indexOf(cfg.long_file);
await page.selectOption("#file", String(big));
const lines = await page.evaluate(n => window.augurExplore.data.files.find(f => f.path.endsWith("/" + n)).text.split("\n").length, cfg.long_file);
const shown = async () => page.$$eval("#source tr[data-line]", rs => rs.length);
const first = await shown();
check(`a long file (${lines} lines) renders a first chunk only`, first > 0 && first < lines, `${first} rows`);
await page.$eval("#source tr.sentinel", e => e.scrollIntoView());
await page.waitForFunction(n => document.querySelectorAll("#source tr[data-line]").length > n, first);
check("scrolling renders the next chunk", (await shown()) > first, `${await shown()} rows`);
if (cfg.memspy)
  check("memspy's ranking of data objects shown", await page.$$eval("#memspy table tr", r => r.length) > 3);

await page.selectOption("#view", "prediction");
await page.evaluate(() => window.scrollTo(0, 0));
await page.screenshot({ path: cfg.screenshot });
check("no console errors, exceptions or requests", problems.length === 0, problems.join(" | "));

// ---- a database without models: the page says what to run
if (cfg.no_models_page) {
  const { page: p2, problems: pr2 } = await open(browser, cfg.no_models_page);
  const notes = await text(p2, "#notes");
  check("without models the page says to run augur model", notes.includes("augur model --db"), notes);
  check("without models the page shows the measured run", (await text(p2, "#total-instructions")).length > 0);
  check("without models: no console errors", pr2.length === 0, pr2.join(" | "));
}
await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
