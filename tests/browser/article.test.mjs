// The worked article in headless Chromium: every number its prose states is one its widgets show
// (same unit, to the prose's precision), the projection count comes from the core, each widget's
// "Open in kvscope" restores its scenario in the explorer (a comparison as pins), and the page
// reads in light and dark, on a desktop and a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open, screenshot } from './support.mjs';

const { FIELDS, OLD_NAMES, attributeOf, checkNamed, parseHash } = await import(path.join(siteDir, 'js/state.js'));
// A widget attribute's name (snake_case, today's or an old one) by its kebab-case spelling.
const NAME_OF_ATTRIBUTE = Object.fromEntries([...Object.keys(OLD_NAMES), ...Object.keys(FIELDS)].map((n) => [attributeOf(n), n]));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const ARTICLE = '/examples/why-kv-cache-limits-concurrency.html';

// Opens the article with every widget's events recorded, scrolls each widget into view (they load
// lazily) and waits until all have answered.
async function openArticle(options = {}) {
  const { page, problems } = await open(browser, `${server.base}${ARTICLE}`, { ready: null, ...options, init: () => {
    window.__results = {};
    document.addEventListener('kvscope-result', (e) => { window.__results[e.target.id] = e.detail.result; });
  } });
  // One widget at a time: a fast scroll can pass one between two frames, and it would never load.
  for (let i = 0; i < await page.locator('kv-cache-explorer').count(); i++) {
    await page.evaluate((n) => document.querySelectorAll('kv-cache-explorer')[n].scrollIntoView(), i);
    await page.waitForFunction((n) => document.querySelectorAll('kv-cache-explorer')[n].shadowRoot.querySelector('.answer, .error'), i);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return { page, problems };
}

/** The prose of a section: its heading and paragraphs, widgets excluded (their text is in their shadow roots). */
const prose = (page, section) => page.evaluate((id) => [...document.querySelectorAll(`#${id} > h2, #${id} > p`)]
  .map((p) => p.textContent).join(' ').replace(/\s+/g, ' '), section);

/** What a widget shows: the text of the elements matching `selector` in its shadow root. */
const shown = (page, id, selector) => page.evaluate(([i, s]) =>
  [...document.getElementById(i).shadowRoot.querySelectorAll(s)].map((e) => e.textContent), [id, selector]);

/** One row of a compare widget's table, a cell per scenario. */
const row = (page, id, label) => page.evaluate(([i, l]) => [...[...document.getElementById(i).shadowRoot.querySelectorAll('tbody tr')]
  .find((tr) => tr.querySelector('th').textContent === l).querySelectorAll('td')].map((td) => td.textContent), [id, label]);

const QUANTITY = /(\d[\d,]*(?:\.\d+)?)(?: ?(GiB|GB|KiB|bytes))?/;

/** "13.5 GB" -> {value: 13.5, unit: 'GB', decimals: 1}; the first quantity in a text. */
function quantity(text) {
  const m = QUANTITY.exec(text);
  assert.ok(m, `no number in ${JSON.stringify(text)}`);
  return { value: Number(m[1].replace(/,/g, '')), unit: m[2] ?? '', decimals: m[1].split('.')[1]?.length ?? 0 };
}

/**
 * The prose states `said` as a whole quantity, and it is what the widget shows (`widgetText`'s first
 * quantity), in the same unit, rounded to the prose's precision.
 */
function agrees(text, said, widgetText) {
  const at = new RegExp(`(^|[^\\d.,])${said.replace(/[.]/g, '\\.')}(?![\\d]|[.,]\\d)`);
  assert.match(text, at, `the prose says ${said}`);
  const p = quantity(said);
  const w = quantity(widgetText);
  assert.equal(p.unit, w.unit, `${said}: the widget shows ${widgetText}`);
  assert.equal(Number(w.value.toFixed(p.decimals)), p.value, `${said}: the widget shows ${widgetText}`);
}

// Byte quantities in a section's prose that no claim below covers (an unchecked number could drift).
function unclaimed(text, claimed) {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)? ?(?:GiB|GB|KiB|bytes)\b/g)].map((m) => m[0]).filter((q) => !claimed.includes(q));
}

test('the article: its prose states the numbers its widgets show, the lever sentence included', async () => {
  const { page, problems } = await openArticle();
  const claims = {};  // section -> [[what the prose says, what a widget shows]]
  const claim = (section, said, widgetText) => (claims[section] ??= []).push([said, widgetText]);

  // The first seed article's projection count, computed by the core.
  assert.deepEqual(await shown(page, 'w-projections', '#projections-without, #projections-with').then((t) => t.map((x) => quantity(x).value)), [2336, 68]);
  const [without, withCache] = await shown(page, 'w-projections', '#projections-without, #projections-with');
  claim('s-projections', '2,336', without);
  claim('s-projections', '68', withCache);
  const why = (await shown(page, 'w-projections', '#why-cache > p'))[1];
  claim('s-projections', '34', /([\d.]+)× fewer/.exec(why)[1]);
  claim('s-projections', '524,288 bytes', /costs ([\d,]+ bytes)/.exec(why)[1]);

  const [mha] = await shown(page, 'w-mha', '#kv-bytes-per-token');
  claim('s-bytes', '524,288 bytes', mha);
  claim('s-bytes', '512 KiB', /\((.*)\)/.exec(mha)[1]);
  claim('s-bytes', '131,072 bytes', (await shown(page, 'w-gqa', '#kv-bytes-per-token'))[0]);
  claim('s-bytes', '2.00 GiB', (await shown(page, 'w-mha', '#kv-per-sequence'))[0]);
  claim('s-bytes', '0.50 GiB', (await shown(page, 'w-gqa', '#kv-per-sequence'))[0]);

  const sweep = await page.evaluate(() => [...document.getElementById('w-contexts').shadowRoot.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent)));  // context, KV per sequence, sequences that fit
  assert.deepEqual(sweep.map((r) => r[0]), ['4,096', '8,192', '32,768', '131,072']);
  claim('s-contexts', '80GB', / (\d+GB)$/.exec((await shown(page, 'w-contexts', 'caption'))[0])[1]);  // the card's name
  claim('s-contexts', '0.50 GiB', sweep[0][1]);
  claim('s-contexts', '16 GiB', sweep[3][1]);
  claim('s-contexts', '103', sweep[0][2]);
  claim('s-contexts', '3', sweep[3][2]);
  claim('s-contexts', '14.96 GiB', (await row(page, 'w-levers', 'weights per GPU'))[0]);
  // "more memory than the model's own bf16 weights"
  const results = await page.evaluate(() => window.__results);
  assert.ok(results['w-contexts'][3].kv_bytes_per_sequence > results['w-levers'][0].report.weights_bytes);

  claim('s-card', '80 GB', (await row(page, 'w-card', 'card'))[0].replace(/^1 × /, ''));
  for (const [label, said] of [['weights per GPU', '13.5 GB'], ['KV pool per GPU', '66.5 GB']]) {
    claim('s-card', said, (await row(page, 'w-card', label))[0]);
  }
  const perSequence = await row(page, 'w-card', 'KV per sequence');
  ['2.15 GB', '0.54 GB', '0.27 GB'].forEach((said, i) => claim('s-card', said, perSequence[i]));
  const fit = await row(page, 'w-card', 'sequences that fit');
  ['30', '123', '247'].forEach((said, i) => claim('s-card', said, fit[i]));

  const [headline] = await shown(page, 'w-startup', '#verdict-headline');
  const [engineError] = await shown(page, 'w-startup', '#startup-error');
  claim('s-startup', '24 GB', / on (\d+ GB) card/.exec(headline)[1]);
  claim('s-startup', '16 GB', `${results['w-startup'].weights_bytes / 1e9} GB`);  // "about 16 GB", in GB
  claim('s-startup', '14.96 GiB', (await row(page, 'w-levers', 'weights per GPU'))[0]);
  claim('s-startup', '3.85 GiB', /available KV cache memory \(([\d.]+ GiB)\)/.exec(engineError)[1]);
  claim('s-startup', '16.0 GiB', /\(([\d.]+ GiB) KV cache is needed/.exec(engineError)[1]);
  claim('s-startup', '31,488', await page.evaluate(() => document.getElementById('w-startup').shadowRoot.querySelector('.verdict').dataset.fits));

  const bytesPerToken = await row(page, 'w-levers', 'KV bytes / token');
  const weights = await row(page, 'w-levers', 'weights per GPU');
  const pool = await row(page, 'w-levers', 'KV pool per GPU');
  const longest = await row(page, 'w-levers', 'longest sequence');
  claim('s-levers', '24 GB', (await row(page, 'w-levers', 'card'))[0].replace(/^1 × /, ''));
  claim('s-levers', '65,536', bytesPerToken[0]);
  claim('s-levers', '131,072', bytesPerToken[1]);
  claim('s-levers', '14.96 GiB', weights[0]);
  claim('s-levers', '5.33 GiB', weights[1]);
  claim('s-levers', '3.85 GiB', pool[0]);
  claim('s-levers', '13.47 GiB', pool[1]);
  claim('s-levers', '4.96 GiB', pool[2]);
  ['62,992', '110,320', '40,640'].forEach((said, i) => claim('s-levers', said, longest[i]));
  claim('s-levers', '8.00 GiB', (await row(page, 'w-levers', 'KV per sequence'))[3]);

  // The card in the reader's other unit (its units control): the GiB the prose gives beside the GB.
  await page.evaluate(() => document.getElementById('w-card').setAttribute('units', 'GiB'));
  await page.waitForFunction(() => /GiB/.test(document.getElementById('w-card').shadowRoot.querySelector('tbody').textContent));
  claim('s-card', '12.57 GiB', (await row(page, 'w-card', 'weights per GPU'))[0]);
  claim('s-card', '61.93 GiB', (await row(page, 'w-card', 'KV pool per GPU'))[0]);

  for (const [section, list] of Object.entries(claims)) {
    const text = await prose(page, section);
    for (const [said, widgetText] of list) agrees(text, said, widgetText);
    assert.deepEqual(unclaimed(text, list.map(([said]) => said)), [], `${section}: numbers no widget backs`);
  }

  // The lever sentence says what the "starts" row shows: no single lever, the fp8 + 4-bit pair yes.
  const starts = await row(page, 'w-levers', 'starts');
  const labels = await shown(page, 'w-levers', 'thead th');
  const levers = await prose(page, 's-levers');
  assert.equal(/None of them alone is enough/.test(levers), starts.slice(0, 3).every((s) => s === 'no'), `starts: ${starts}`);
  assert.equal(labels[3], 'fp8 KV + 4-bit weights');
  assert.equal(/fp8 cache and the 4-bit weights together are: .*?, and vLLM starts\./.test(levers), starts[3] === 'yes', `starts: ${starts}`);

  assert.deepEqual(problems, []);
  await page.close();
});

/** The page's inputs that name a scenario, as the explorer shows them. */
const pageInputs = (page) => page.evaluate(() => Object.fromEntries(['model', 'gpu', 'engine', 'kv-dtype', 'weight-dtype', 'context', 'gpu-memory-gb']
  .map((id) => [id, document.getElementById(id).value])));

test('"Open in kvscope": each widget opens the explorer on its scenario, a comparison with its scenarios pinned', async () => {
  const { page, problems } = await openArticle();
  const widgets = await page.evaluate(() => [...document.querySelectorAll('kv-cache-explorer')].map((w) => ({
    id: w.id, view: w.getAttribute('view'), href: w.shadowRoot.querySelector('.source a').href,
    attributes: Object.fromEntries([...w.attributes].map((a) => [a.name, a.value])) })));
  assert.equal(widgets.length, 7);
  for (const w of widgets) {
    assert.ok(w.href.startsWith(`${server.base}/index.html#`), `${w.id}: ${w.href}`);
    const { state, refused } = parseHash(new URL(w.href).hash);
    assert.deepEqual(refused, [], w.id);
    // Every scenario attribute of the widget is in the link.
    for (const [attribute, raw] of Object.entries(w.attributes)) {
      if (!NAME_OF_ATTRIBUTE[attribute]) continue;
      const { field, value } = checkNamed(NAME_OF_ATTRIBUTE[attribute], raw);
      assert.equal(state[field], value, `${w.id}: ${attribute}`);
    }
    const { page: explorer, problems: explorerProblems } = await open(browser, w.href);
    assert.equal(await explorer.evaluate(() => document.getElementById('page-error').hidden), true, w.id);
    const inputs = await pageInputs(explorer);
    assert.equal(inputs.model, state.model, w.id);
    assert.equal(Number(inputs.context), state.context_tokens, w.id);
    assert.equal(inputs.gpu, state.gpu, w.id);
    assert.equal(inputs.engine, state.engine, w.id);
    assert.equal(inputs['kv-dtype'], state.kv_dtype, w.id);
    assert.equal(inputs['weight-dtype'], state.weight_dtype, w.id);
    if (state.gpu === 'custom') assert.equal(Number(inputs['gpu-memory-gb']) * 1e9, state.gpu_memory_bytes, w.id);
    const pinned = await explorer.evaluate(() => [...document.querySelectorAll('#compare-panel tbody tr')].map((tr) => tr.textContent));
    if (w.view === 'compare') {
      // The same scenarios, computed by the explorer: the rows read as the widget's (same units).
      const rows = await page.evaluate((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('tbody tr')].map((tr) => tr.textContent), w.id);
      assert.notEqual(state.pins, '', `${w.id}: the link pins its scenarios`);
      assert.equal(JSON.parse(state.pins).length, w.attributes.compare.split('|').length, w.id);
      assert.deepEqual(pinned, rows, w.id);
    } else {
      assert.deepEqual(pinned, [], `${w.id}: nothing pinned`);
    }
    if (w.view === 'projections') {
      assert.deepEqual(await explorer.evaluate(() => ['projections-without', 'projections-with']
        .map((id) => Number(document.querySelector(`#why-panel #${id}`).dataset.value))), [2336, 68]);
    }
    if (w.view === 'bytes-per-token') {
      const [bytes] = await shown(page, w.id, '#kv-bytes-per-token');
      assert.equal(await explorer.textContent('#kv-panel #kv-bytes-per-token'), bytes, w.id);
    }
    if (w.view === 'startup') {
      const verdict = await page.evaluate((id) => ({ ...document.getElementById(id).shadowRoot.querySelector('.verdict').dataset }), w.id);
      assert.equal(await explorer.getAttribute('#verdict .verdict', 'data-starts'), verdict.starts, w.id);
      assert.equal(await explorer.getAttribute('#verdict .verdict', 'data-fits'), verdict.fits, w.id);
    }
    assert.deepEqual(explorerProblems, [], w.id);
    await explorer.close();
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the article reads in light and dark, on a desktop and a phone', async () => {
  for (const [name, width, height, colorScheme] of [['article', 1280, 900, 'light'], ['article-phone', 390, 844, 'light'],
    ['article-dark', 1280, 900, 'dark'], ['article-dark-phone', 390, 844, 'dark']]) {
    const { page, problems } = await openArticle({ width, height });
    await page.emulateMedia({ colorScheme });
    // Nothing wider than the screen: wide tables scroll inside their widget.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${name}: no sideways scroll`);
    // Text against its background, in the page and inside each widget (WCAG's 4.5:1).
    const contrasts = await page.evaluate(() => {
      const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
      const lum = (c) => rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
        .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
      const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
      const body = getComputedStyle(document.body);
      return [['page', ratio(body.color, body.backgroundColor)],
        ...[...document.querySelectorAll('kv-cache-explorer')].map((w) => {
          const s = getComputedStyle(w.shadowRoot.querySelector('.widget'));
          return [w.id, ratio(s.color, s.backgroundColor)];
        })];
    });
    for (const [what, r] of contrasts) assert.ok(r >= 4.5, `${name}: ${what} contrast ${r.toFixed(2)}`);
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(/rgb\((\d+)/.exec(dark)[1] < 128, colorScheme === 'dark', `${name}: background ${dark}`);
    assert.deepEqual(problems, []);
    await screenshot(page, name);
    await page.close();
  }
});
