// The reports the core writes, held to kvscope.d.ts by tsc: each golden report (tests/data/requests/)
// and each catalogue and explain report the CLI prints is written out as a TypeScript object literal
// declared as its report type. tsc then refuses a field the core adds (an excess property of a
// fresh literal), renames or drops (a missing one), or writes with another type or null, so the
// types follow the core or a test fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot } from '../paths.mjs';

const requests = path.join(repoRoot, 'tests/data/requests');
const out = path.join(repoRoot, 'build-artifacts/report-types');
const reportType = { estimate: 'EstimateReport', plan: 'PlanReport', sweep: 'SweepsReport', solve: 'SolveReport' };

// What the CLI prints as JSON for `args`.
function cliJson(args) {
  const run = spawnSync(cliPath, [...args, '--json'], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, `kvscope ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// name -> [report type, report]
function reports() {
  const all = new Map();
  for (const file of readdirSync(requests).filter((f) => f.endsWith('.expected.json'))) {
    const name = file.replace('.expected.json', '');
    const request = JSON.parse(readFileSync(path.join(requests, `${name}.request.json`), 'utf8'));
    const report = JSON.parse(readFileSync(path.join(requests, file), 'utf8'));
    all.set(name, [report.error ? 'ErrorReport' : reportType[request.command], report]);
  }
  all.set('models', ['ModelCatalogue', cliJson(['models'])]);
  all.set('gpus', ['GpuCatalogue', cliJson(['gpus'])]);
  all.set('dtypes', ['DtypeCatalogue', cliJson(['dtypes'])]);
  all.set('engines', ['EngineCatalogue', cliJson(['engines'])]);
  // Start-up logs of each engine, with the arguments their header gives (`# explain: ...`).
  for (const log of ['vllm-v1-gemma3-27b-it-rocm-4k.log', 'vllm-v0-llama31-8b-rtx3090-20k.log',
    'llamacpp-qwen25-coder-32b-q8_0-2gpu-q8kv.log', 'sglang-llama31-8b-24gb-docker.log', 'trtllm-gpt-oss-120b-dgx-spark-pytorch.log']) {
    const text = readFileSync(path.join(repoRoot, 'tests/data/logs', log), 'utf8');
    const args = (text.match(/^# explain: (.*)$/m)?.[1] ?? '').split(' ').filter(Boolean);
    all.set(`explain-${log}`, ['ExplainReport', cliJson(['explain', `tests/data/logs/${log}`, ...args])]);
  }
  return all;
}

test('every report the core writes type-checks as its type in kvscope.d.ts, field for field', () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files = [];
  for (const [name, [type, report]] of reports()) {
    assert.ok(type, `${name}: no report type for its command`);
    const file = `${name.replace(/[^a-z0-9-]/gi, '-')}.ts`;
    writeFileSync(path.join(out, file), `import type { ${type} } from '../../web/js/kvscope';\n` +
      `export const report: ${type} = ${JSON.stringify(report, null, 1)};\n`);
    files.push(file);
  }
  writeFileSync(path.join(out, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { noEmit: true, strict: true, target: 'es2022', module: 'esnext',
      moduleResolution: 'bundler', skipLibCheck: true, types: [] },
    files,
  }));
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(out, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
