// The golden requests (tests/data/requests/NAME.request.json): both modules (the first one for the
// commands it answers without reading a config, the full one for every request) and the CLI reading the request file give
// NAME.expected.json, the answer the core's GoogleTest suite also checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, siteDir } from '../paths.mjs';
import { cliAnswer } from '../support/cli-request.mjs';
import { needsFullModule } from '../support/modules.mjs';

const { loadKvscope, KvscopeError } = await import(path.join(siteDir, 'js/kvscope-client.js'));
const wasm = (name) => readFileSync(path.join(siteDir, `js/wasm/${name}.wasm`));
const kv = await loadKvscope({ wasmBinary: wasm('kvscope_module') });
const full = await loadKvscope({ full: true, wasmBinary: wasm('kvscope_full_module') });
const dir = path.join(repoRoot, 'tests/data/requests');
const golden = readdirSync(dir).filter((f) => f.endsWith('.request.json')).map((f) => f.replace('.request.json', ''));
const FULL_ONLY = ['solve', 'explain'];

function assertGolden(module, name, request, expected) {
  if (expected.error) {
    assert.throws(() => module[request.command](request), (e) => e instanceof KvscopeError &&
      e.code === expected.error.code && e.field === expected.error.field && e.message === expected.error.message, name);
  } else {
    assert.deepEqual(module[request.command](request), expected, name);
  }
}

test('golden requests: both modules give the expected answer', () => {
  assert.ok(golden.length >= 8, `${golden.length} golden requests`);
  let first = 0;
  for (const name of golden) {
    const request = JSON.parse(readFileSync(path.join(dir, `${name}.request.json`), 'utf8'));
    const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), 'utf8'));
    assertGolden(full, name, request, expected);
    if (FULL_ONLY.includes(request.command)) continue;
    if (needsFullModule(request)) {
      assert.throws(() => kv[request.command](request), (e) => e instanceof KvscopeError &&
        e.code === 'needs_full_module', name);
      continue;
    }
    assertGolden(kv, name, request, expected);
    first += 1;
  }
  assert.ok(first >= 5 && first < golden.length, `${first} of ${golden.length} golden requests for the first module`);
});

test('golden requests: the CLI reading the request file gives the expected answer', () => {
  for (const name of golden) {
    const request = JSON.parse(readFileSync(path.join(dir, `${name}.request.json`), 'utf8'));
    const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), 'utf8'));
    const a = cliAnswer(request.command, request);
    assert.equal(a.status, expected.error ? 2 : 0, name);
    assert.deepEqual(a.json, expected, name);
  }
});
