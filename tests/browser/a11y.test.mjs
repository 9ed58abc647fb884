// Keyboard and screen reader (issue 17, item 6): axe-core finds no serious or critical violation on
// the page's states (desktop, phone, dark, errors, open sections), Tab visits only visible controls
// in the order they are seen, and one live region speaks the verdict once the controls rest.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '../paths.mjs';
import { serve, launch, open, showSweeps } from './support.mjs';

const AXE = await readFile(path.join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8');

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** axe-core's serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page) {
  await page.evaluate(AXE);  // evaluated over the DevTools protocol: the page's CSP does not apply
  const violations = await page.evaluate(async () => (await globalThis.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  return violations;
}

const STATES = [
  { name: 'desktop, light', hash: 'theme=light', width: 1280, height: 900 },
  { name: 'desktop, dark, an H100 that starts', hash: 'theme=dark&gpu=h100-sxm-80gb', width: 1280, height: 900 },
  { name: 'phone', hash: '', width: 390, height: 844 },
  { name: 'phone, dark', hash: 'theme=dark&engine=sglang&gpu=l40s', width: 390, height: 844 },
  { name: 'refused link fields', hash: 'gpu=nope&tp=3&bogus=1', width: 1280, height: 900 },
];

test('axe-core: no serious or critical violation, light and dark, desktop and phone, with sections open and errors shown', async () => {
  for (const s of STATES) {
    const { page, problems } = await open(browser, `${server.base}/index.html#${s.hash}`, { width: s.width, height: s.height });
    await page.waitForSelector('body[data-measured]', { state: 'attached' });
    assert.deepEqual(await seriousViolations(page), [], s.name);
    await showSweeps(page);  // and with the charts drawn
    for (const details of await page.locator('details').all()) await details.evaluate((d) => { d.open = true; });
    await page.fill('#batch', '0');  // an edit's error beside its field
    assert.deepEqual(await seriousViolations(page), [], `${s.name}, every section open and an error shown`);
    assert.deepEqual(problems, [], s.name);
    await page.close();
  }
});

/** The first `count` Tab stops: element id (or text), whether it can be seen, and where. */
async function tabStops(page, count) {
  const stops = [];
  for (let i = 0; i < count; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await page.evaluate(() => {
      const el = document.activeElement;
      const box = el.getBoundingClientRect();
      const row = (el.closest('label') ?? el).getBoundingClientRect();  // a grid row's cells share its bottom
      return { name: el.id || el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30),
        visible: box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden',
        y: row.bottom + window.scrollY, x: box.left };
    }));
  }
  return stops;
}

test('on a phone, Tab follows the one column: the verdict\'s action first, then the inputs; no stop is invisible', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`, { width: 390, height: 844 });
  // The card and the charts are drawn as they come near the viewport, which moves what is below
  // them: drawn first, so the stops' places are measured in the page as it stays.
  await showSweeps(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.focus('body');
  const stops = await tabStops(page, 45);
  const invisible = stops.filter((s, i) => !s.visible && i > 0);  // the skip link shows only on focus
  assert.deepEqual(invisible, [], 'every Tab stop can be seen');
  const names = stops.map((s) => s.name);
  assert.ok(names.indexOf('use-fitting-context') >= 0 && names.indexOf('use-fitting-context') < names.indexOf('model'),
    `the verdict's "Use N" before the first input: ${names.slice(0, 8)}`);
  for (let i = 2; i < stops.length; i += 1) {
    const [a, b] = [stops[i - 1], stops[i]];
    const sameRow = Math.abs(b.y - a.y) <= 1;
    assert.ok(sameRow ? b.x > a.x : b.y > a.y, `Tab order is visual order: ${a.name} (${a.x}, ${a.y}) then ${b.name} (${b.x}, ${b.y})`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('one live region speaks the verdict\'s headline once the controls rest', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  assert.equal(await page.getAttribute('#verdict-live', 'aria-live'), 'polite');
  await page.waitForFunction(() => /will not start/.test(document.getElementById('verdict-live').textContent));
  await page.fill('#context', '16384');
  await page.waitForFunction(() => /starts: Llama 3\.1 8B on 24 GB card at max_model_len 16,384/.test(document.getElementById('verdict-live').textContent));
  assert.equal(await page.locator('[aria-live]').evaluateAll((els) => els.filter((e) => e.closest('#verdict')).length), 0,
    'the replaced verdict element is not a live region of its own');
  assert.deepEqual(problems, []);
  await page.close();
});
