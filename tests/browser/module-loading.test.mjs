// How the page gets its WebAssembly core (web/js/kvscope-client.js): a loading state while it
// downloads, and one fetch, even from a server that does not send it as application/wasm.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open } from './support.mjs';

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('while the module downloads the page says so, then the answers replace it', async () => {
  const page = await browser.newPage();
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${server.base}/index.html`);
  await page.waitForSelector('#loading', { state: 'visible' });
  assert.match(await page.textContent('#verdict'), /Loading the sizing core/);
  release();
  await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 20000 });
  assert.equal(await page.$('#loading'), null);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'false');
  await page.close();
});

test('a .wasm served as application/octet-stream is fetched once, compiled whole, and answers', async () => {
  const wasm = readFileSync(path.join(siteDir, 'js/wasm/kvscope_module.wasm'));
  let served = 0;
  const { page, problems } = await open(browser, `${server.base}/index.html`, {
    before: (p) => p.route('**/js/wasm/kvscope_module.wasm', (route) => {
      served++;
      return route.fulfill({ contentType: 'application/octet-stream', body: wasm });
    }),
  });
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'false');
  assert.equal(served, 1);
  assert.deepEqual(problems, []);
  assert.equal(await page.evaluate(async () => (await import('./js/kvscope-client.js')).instantiations()), 1);
  await page.close();
});

test('a .wasm that does not arrive is one line on the page, not a blank or broken one', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`, {
    ready: '#page-error:not([hidden])',
    before: (p) => p.route('**/js/wasm/kvscope_module.wasm', (route) => route.abort()),
  });
  assert.match(await page.textContent('#page-error'), /^The WebAssembly core did not load: .+/);
  assert.equal(await page.$('#loading'), null);
  assert.deepEqual(problems.filter((p) => !p.includes('Failed to load resource')), []);  // the browser's own lines
  await page.close();
});
