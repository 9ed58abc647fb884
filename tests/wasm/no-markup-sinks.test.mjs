// The page's own JavaScript never turns text into markup or code: no innerHTML, outerHTML,
// insertAdjacentHTML, document.write, eval or new Function anywhere in web/ (the generated
// module is built with -sDYNAMIC_EXECUTION=0 and checked in the browser by the page's CSP).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../paths.mjs';

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(m?js|html)$/.test(name) ? [full] : [];
  });
}

test('no markup or code sinks in web/', () => {
  const sinks = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\s*\(|new\s+Function\b|setTimeout\s*\(\s*['"`])/;
  const files = sources(path.join(repoRoot, 'web'));
  assert.ok(files.length > 15, `${files.length} files read`);
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      assert.doesNotMatch(line, sinks, `${path.relative(repoRoot, file)}:${i + 1}`);
    });
  }
});

test('every page forbids inline script and eval in its Content-Security-Policy', () => {
  const pages = sources(path.join(repoRoot, 'web')).filter((f) => f.endsWith('.html'));
  assert.ok(pages.length >= 3);
  for (const page of pages) {
    const csp = readFileSync(page, 'utf8').match(/http-equiv="Content-Security-Policy" content="([^"]+)"/);
    assert.ok(csp, `${page} has a CSP`);
    const script = csp[1].split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
    assert.ok(script && !/'unsafe-inline'|'unsafe-eval'/.test(script), `${page}: ${script}`);
    assert.ok(!/<script>|<script [^>]*>[^<\s]/.test(readFileSync(page, 'utf8')), `${page} has no inline script`);
  }
});
