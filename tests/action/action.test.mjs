// The GitHub Action's steps run locally as a runner runs them: action.yml read, each step's
// ${{ inputs.* }} replaced by the test's inputs (or the defaults), its `run` under bash in a
// workspace folder with GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP set;
// `npx kvscope` runs the packed tarball (scripts/pack-npm.sh) as the package input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot, cliPath } from '../paths.mjs';
import { shellWords } from '../../packaging/action/run.mjs';

const action = parse(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8'));
const tarball = path.join(repoRoot, 'build/npm', readdirSync(path.join(repoRoot, 'build/npm')).find((f) => /^kvscope-.*\.tgz$/.test(f)));

/** Runs the action's steps with `inputs`; its status, log, summary and outputs. */
function runAction(inputs) {
  const workspace = mkdtempSync(path.join(tmpdir(), 'kvscope-action-'));
  const files = { GITHUB_OUTPUT: path.join(workspace, '.output'), GITHUB_STEP_SUMMARY: path.join(workspace, '.summary') };
  for (const file of Object.values(files)) writeFileSync(file, '');
  for (const file of inputs.files ?? []) copyFileSync(file, path.join(workspace, path.basename(file)));
  const given = { package: tarball, ...inputs };
  const value = (text) => String(text).replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name) =>
    name in given ? given[name] : action.inputs[name].default);
  let status = 0;
  let log = '';
  for (const step of action.runs.steps) {
    assert.equal(step.shell, 'bash');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, value(v)]));
    const r = spawnSync('bash', ['-e', '-c', value(step.run)], {
      cwd: workspace, encoding: 'utf8',
      env: { ...process.env, ...stepEnv, ...files, GITHUB_ACTION_PATH: repoRoot, RUNNER_TEMP: workspace },
    });
    log += r.stdout + r.stderr;
    status = r.status;
    if (status !== 0) break;
  }
  const outputs = Object.fromEntries(readFileSync(files.GITHUB_OUTPUT, 'utf8').trim().split('\n').filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  return { status, log, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'), outputs };
}

const native = (args) => spawnSync(cliPath, args, { encoding: 'utf8', cwd: repoRoot });

test('action.yml is a composite action with the inputs the docs name, and its default package is this version', () => {
  assert.equal(action.runs.using, 'composite');
  assert.deepEqual(Object.keys(action.inputs).sort(), ['args', 'package', 'request', 'summary']);
  assert.deepEqual(Object.keys(action.outputs).sort(), ['exit-code', 'report', 'starts']);
  const version = execFileSync(cliPath, ['--version'], { encoding: 'utf8' }).trim().split(' ')[1];
  assert.equal(action.inputs.package.default, `kvscope@${version}`);
});

test('a plan that will not start fails the step (--require-concurrency), with the reason and the figures in the summary', () => {
  const args = ['plan', '--model', 'llama-3.1-8b', '--gpu-memory', '24GB', '--max-model-len', '131072', '--require-concurrency', '1'];
  const r = runAction({ args: args.join(' ') });
  assert.equal(r.status, 1);
  assert.equal(r.outputs['exit-code'], '1');
  assert.equal(r.outputs.starts, 'false');
  assert.deepEqual(JSON.parse(readFileSync(r.outputs.report, 'utf8')), JSON.parse(native([...args, '--json']).stdout));
  assert.match(r.summary, /^### kvscope plan\n\nWill not start on 24 GB card: .*The largest max_model_len that fits is 28,256\.\n/);
  assert.match(r.summary, /\| max_model_len_that_fits \| 28256 \| tokens \|/);
  assert.match(r.summary, /<details><summary>kvscope's report<\/summary>\n\n```text\nkvscope plan: Llama 3\.1 8B/);
  assert.equal(r.log, native(args).stdout, 'the log shows the text report');
});

test('a request file that fits passes; summary: false writes none', () => {
  const file = path.join(repoRoot, 'tests/data/requests/deepseek-v3-8xh200-fp8.request.json');
  const command = JSON.parse(readFileSync(file, 'utf8')).command;
  const r = runAction({ request: path.basename(file), files: [file] });
  const expected = native([command, '--request', file, '--json']);
  assert.equal(r.status, expected.status);
  assert.equal(r.outputs['exit-code'], String(expected.status));
  assert.match(r.summary, new RegExp(`^### kvscope ${command}\\n\\n`));
  const quiet = runAction({ request: path.basename(file), files: [file], summary: 'false' });
  assert.equal(quiet.summary, '');
  assert.equal(quiet.status, expected.status);
});

test('check of a quoted launch command lists the findings and the fixes as commands', () => {
  const r = runAction({ args: `check --gpu h100-sxm-80gb -- "vllm serve Qwen/Qwen3-32B \\\n  --max-model-len 131072"` });
  assert.equal(r.status, 1);
  assert.match(r.summary, /^### kvscope check\n\nWill not start: /);
  assert.match(r.summary, /- \*\*error\*\* `--max-model-len`: the model accepts at most 40,960 tokens/);
  assert.match(r.summary, /\| `vllm serve Qwen\/Qwen3-32B --max-model-len 40960[^`]*` \|/);
});

test('solve that meets its target passes with the options table', () => {
  const r = runAction({ args: 'solve --model qwen3-32b --concurrency 20 --context 32768' });
  assert.equal(r.status, 0);
  assert.match(r.summary, /\n\nCheapest that meets the target: /);
  assert.match(r.summary, /\| GPUs \| tp x pp x dp \| KV \| weights \| sequences that fit \| meets \| \$\/hour \| command \|/);
});

test('bad input exits 2 with the one-line error; a request and args together, or neither, are refused', () => {
  const bad = runAction({ args: 'plan --model no-such-model --gpu h100-sxm-80gb' });
  assert.equal(bad.status, 2);
  assert.equal(bad.outputs['exit-code'], '2');
  assert.equal(bad.summary, `### kvscope plan\n\n${native(['plan', '--model', 'no-such-model', '--gpu', 'h100-sxm-80gb']).stderr.trim()}\n`);
  const both = runAction({ args: 'models', request: 'r.json' });
  assert.equal(both.status, 2);
  assert.match(both.summary, /give request or args, not both/);
  assert.equal(runAction({}).status, 2);
  assert.match(runAction({ request: 'missing.json' }).log, /request: cannot read "missing\.json" as JSON/);
});

test('args are split as a shell splits them', () => {
  assert.deepEqual(shellWords(`check -- "vllm serve m" --x 'a b' c\\ d\n  --y`), ['check', '--', 'vllm serve m', '--x', 'a b', 'c d', '--y']);
  assert.deepEqual(shellWords('a "" b'), ['a', '', 'b']);
  assert.deepEqual(shellWords(`"say \\"hi\\""`), ['say "hi"']);
  assert.throws(() => shellWords(`a 'b`), /unterminated ' quote/);
});

test("the example workflow's argument steps pass as written", () => {
  const workflow = parse(readFileSync(path.join(repoRoot, 'docs/github-action-example.yml'), 'utf8'));
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps)
    .filter((step) => /\/kvscope@/.test(step.uses ?? '') && step.with?.args);
  assert.ok(steps.length >= 1);
  for (const step of steps) {
    const r = runAction(step.with);
    assert.equal(r.status, 0, `${step.with.args}\n${r.log}`);
    assert.equal(r.outputs.starts, 'true');
  }
});
