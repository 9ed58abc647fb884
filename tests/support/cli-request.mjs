// The native CLI answering a kvscope.request/1 object (`kvscope <command> --request FILE --json`),
// for tests that hold the module's answer against the command line's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliPath } from '../paths.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'kvscope-request-'));
let count = 0;

/** @returns {{status: number, json: any, stderr: string}} */
export function cliAnswer(command, request) {
  const file = path.join(dir, `request-${count += 1}.json`);
  writeFileSync(file, JSON.stringify(request));
  const run = spawnSync(cliPath, [command, '--request', file, '--json'], { encoding: 'utf8' });
  return { status: run.status, json: JSON.parse(run.stdout), stderr: run.stderr };
}

/** The CLI's report for a request; throws with its one-line error when it refuses. */
export function cliReport(command, request) {
  const a = cliAnswer(command, request);
  if (a.status !== 0) throw new Error(a.stderr);
  return a.json;
}
