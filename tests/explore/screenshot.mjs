// screenshot.mjs — a picture of an `augur explore` page for the docs
// (docs/images/explore.png, made from scripts/demo.sh's page), taken in
// headless Debian chromium as check_page.mjs takes the test's.
// usage: node screenshot.mjs PAGE.html OUT.png [SCOPE_NAME]
//   SCOPE_NAME: a row of the scope table to select first (its model and
//   reuse distances are then shown), e.g. "loop at matmul.c:24".
import { chromium } from "playwright-core";

const [page_path, out, scope] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1400, height: 1050 } });
await page.goto("file://" + page_path);
await page.waitForFunction(() => Number(document.body.dataset.rendered) >= 1);
if (scope) await page.click(`#table td.name[title="${scope}"]`);
await page.screenshot({ path: out });
await browser.close();
