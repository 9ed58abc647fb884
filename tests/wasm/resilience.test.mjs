// The client after failures: bad input leaves the module answering; a trap (an exception out of
// the WebAssembly instance) drops the instance, and the next load starts a fresh one that answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { siteDir } from '../paths.mjs';

const client = await import(path.join(siteDir, 'js/kvscope-client.js'));
const wasmBinary = readFileSync(path.join(siteDir, 'js/wasm/kvscope_module.wasm'));
const scenario = { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, max_model_len: 131072 };

test('after a trap the instance is dropped and a fresh one answers the same', async () => {
  const kv = await client.loadKvscope({ wasmBinary });
  const good = kv.plan(scenario);
  for (const bad of ['{"num_hidden_layers": 1e999}', '[', '\u0000'.repeat(100)]) {
    assert.throws(() => kv.importConfig(bad), client.KvscopeError);
  }
  assert.deepEqual(kv.plan(scenario), good, 'errors as values leave the module answering');
  // A trap inside the instance reaches JS as an exception from the binding.
  kv.module.plan = () => { throw new WebAssembly.RuntimeError('unreachable'); };
  assert.throws(() => kv.plan(scenario), (e) => e instanceof client.KvscopeError && e.code === 'internal_error');
  assert.throws(() => kv.estimate({ model: 'llama-2-7b' }), /load it again/, 'the dropped instance refuses');
  const fresh = await client.loadKvscope({ wasmBinary });
  assert.notEqual(fresh, kv);
  assert.equal(client.instantiations(), 2);
  assert.deepEqual(fresh.plan(scenario), good);
});
