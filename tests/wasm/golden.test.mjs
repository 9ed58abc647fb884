// The golden requests (tests/data/requests/NAME.request.json): the module and the CLI reading the
// request file both give NAME.expected.json, the answer the core's GoogleTest suite also checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, siteDir } from '../paths.mjs';
import { cliAnswer } from '../support/cli-request.mjs';

const { loadKvscope, KvscopeError } = await import(path.join(siteDir, 'js/kvscope-client.js'));
const kv = await loadKvscope({ wasmBinary: readFileSync(path.join(siteDir, 'js/wasm/kvscope_module.wasm')) });
const dir = path.join(repoRoot, 'tests/data/requests');
const golden = readdirSync(dir).filter((f) => f.endsWith('.request.json')).map((f) => f.replace('.request.json', ''));

test('golden requests: the module gives the expected answer', () => {
  assert.ok(golden.length >= 8, `${golden.length} golden requests`);
  for (const name of golden) {
    const request = JSON.parse(readFileSync(path.join(dir, `${name}.request.json`), 'utf8'));
    const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), 'utf8'));
    if (expected.error) {
      assert.throws(() => kv[request.command](request), (e) => e instanceof KvscopeError &&
        e.code === expected.error.code && e.field === expected.error.field && e.message === expected.error.message, name);
    } else {
      assert.deepEqual(kv[request.command](request), expected, name);
    }
  }
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
