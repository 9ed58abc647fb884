// web/js/kvscope.d.ts against its users: tsc --checkJs over the client, the state's request
// builders, the commands, the views and a typed example caller (tests/types/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../paths.mjs';

test('the JS API and its callers type-check against kvscope.d.ts', () => {
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(repoRoot, 'tests/types/tsconfig.json')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
