// Browser-test support: a static file server over the staged site (as any static server would
// serve it) and Debian's Chromium driven by playwright-core.
import { createServer } from 'node:http';
import { readFile, mkdtemp } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot, siteDir } from '../paths.mjs';
import { cliReport } from '../support/cli-request.mjs';

const { planRequest, useEngines } = await import(path.join(siteDir, 'js/state.js'));
useEngines(cliReport('engines', {}));  // the core's engine table, as the page installs it

/** `kvscope plan --request FILE --json` for a page state's request. */
export function cliPlan(state) {
  return cliReport('plan', planRequest(state));
}

/** An element's data-value as a number. */
export const value = (page, selector) => page.getAttribute(selector, 'data-value').then(Number);

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.md': 'text/markdown' };

export const fixturesDir = path.join(repoRoot, 'tests/browser/fixtures');

/** Serves `root` on 127.0.0.1 at a free port (and the test host pages under /test-host/). */
export async function serve(root = siteDir) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const [base, rest] = url.pathname.startsWith('/test-host/')
      ? [fixturesDir, url.pathname.slice('/test-host'.length)] : [root, url.pathname];
    const file = path.join(base, decodeURIComponent(rest === '/' ? '/index.html' : rest));
    if (!file.startsWith(base)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

// Without the last: a fresh Chromium 156 loads its omnibox popup's WebUI in a second renderer
// while the page under test loads, as much CPU again on this 2-core machine (the first answer
// 830-896 vs 495-591 ms in paired benchmark runs); a user's browser did that when it started.
// Puppeteer's default arguments disable the same two features (puppeteer/puppeteer#15278).
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup'];

/** A fresh headless Chromium (Debian's /usr/bin/chromium, or KVSCOPE_CHROMIUM). */
export async function launch() {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'kvscope-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.KVSCOPE_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
}

/**
 * Opens a page and records console errors, page errors and dialogs (none may happen).
 * `before(page)` runs before the navigation (routes, request listeners).
 */
export async function open(context, url, { width = 1280, height = 900, ready = 'body[data-ready]', init = null, before = null } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  if (init) await page.addInitScript(init);  // runs before the page's own scripts
  if (before) await before(page);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(url);
  if (ready) await page.waitForSelector(ready, { state: 'attached', timeout: 20000 });
  return { page, problems };
}

/**
 * Scrolls the charts into view and waits for the sweeps of the answer shown and for the chart
 * library (loaded or failed): the page draws the card's memory and the charts only near the
 * viewport (web/js/app.js, drawSweepsIfNear) and fetches the library with the first chart.
 */
export async function showSweeps(page, section = '#chart-concurrency') {
  await page.locator(section).scrollIntoViewIfNeeded();
  await page.waitForSelector('body[data-sweeps="drawn"][data-charts]', { state: 'attached' });
}

export const artifactsDir = path.join(repoRoot, 'build-artifacts/screenshots');
mkdirSync(artifactsDir, { recursive: true });

/** Saves a full-page screenshot under build-artifacts/screenshots/ (and docs/ when asked). */
export async function screenshot(page, name) {
  // A viewport as tall as the page: panels out of view are not rendered (content-visibility: auto),
  // and the page's height changes as they are, until it settles.
  const viewport = page.viewportSize();
  for (let i = 0, height = viewport.height; i < 5; i++) {
    await page.setViewportSize({ width: viewport.width, height });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const next = Math.max(viewport.height, await page.evaluate(() => Math.ceil(document.body.getBoundingClientRect().bottom
      + parseFloat(getComputedStyle(document.body).marginBottom) + window.scrollY)));
    if (next === height) break;
    height = next;
  }
  // Every panel is near: the sweeps are drawn, and the charts once their library is in.
  await page.waitForFunction(() => { const b = document.body.dataset; return b.sweeps !== 'pending' && (b.sweeps !== 'drawn' || b.charts); });
  await page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: true });
  await page.setViewportSize(viewport);
  if (process.env.KVSCOPE_UPDATE_DOCS_SCREENSHOTS === '1') {  // the README's pictures
    mkdirSync(path.join(repoRoot, 'docs'), { recursive: true });
    await page.screenshot({ path: path.join(repoRoot, 'docs', `${name}.png`), fullPage: false });
  }
}
