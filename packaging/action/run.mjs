// The GitHub Action's step (action.yml): the inputs (environment KVSCOPE_*) to `npx kvscope`
// arguments, run twice (--json for the report and the status, text for the log and the summary's
// folded report), the answer as Markdown (web/js/report-text.js) appended to $GITHUB_STEP_SUMMARY,
// the outputs to $GITHUB_OUTPUT, and kvscope's exit status as the step's.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reportMarkdown } from '../../web/js/report-text.js';

const env = process.env;

/** Words as a shell splits them: blanks (and line breaks) between, '...' and "..." quote, \ escapes. */
export function shellWords(text) {
  const words = [];
  let word = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error("args: unterminated ' quote");
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {  // \ escapes " \ $ ` inside
      word = word ?? '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && '"\\$`'.includes(text[i + 1] ?? '')) i++;
        word += text[i];
      }
      if (i >= text.length) throw new Error('args: unterminated " quote');
    } else if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] !== '\n') word = (word ?? '') + text[i + 1];
      i++;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** The kvscope arguments the inputs name; throws with a one-line reason. */
function argumentsOf() {
  const request = (env.KVSCOPE_REQUEST ?? '').trim();
  const args = (env.KVSCOPE_ARGS ?? '').trim();
  if (request && args) throw new Error('give request or args, not both');
  if (!request && !args) throw new Error('give request (a kvscope.request/1 file) or args');
  if (args) return shellWords(args).filter((w) => w !== '--json');
  let command;
  try {
    command = JSON.parse(readFileSync(request, 'utf8')).command;
  } catch (e) {
    throw new Error(`request: cannot read ${JSON.stringify(request)} as JSON: ${e.message}`);
  }
  if (typeof command !== 'string') throw new Error(`request: ${JSON.stringify(request)} has no "command" key`);
  return [command, '--request', request];
}

function kvscope(args) {
  const r = spawnSync('npx', ['--yes', '--prefer-offline', `--package=${env.KVSCOPE_PACKAGE || 'kvscope'}`, 'kvscope', ...args],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) throw r.error;
  return { status: r.status ?? 70, stdout: r.stdout, stderr: r.stderr };
}

function output(name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function summary(markdown) {
  if (env.GITHUB_STEP_SUMMARY && env.KVSCOPE_SUMMARY !== 'false') appendFileSync(env.GITHUB_STEP_SUMMARY, markdown);
}

function main() {
  let args;
  try {
    args = argumentsOf();
  } catch (e) {
    process.stderr.write(`kvscope action: error: ${e.message}\n`);
    summary(`### kvscope\n\nkvscope action: error: ${e.message}\n`);
    output('exit-code', 2);
    return 2;
  }
  const [command, ...rest] = args;
  const json = kvscope([command, '--json', ...rest]);  // before check's `--`
  const text = kvscope(args);
  process.stdout.write(text.stdout);
  process.stderr.write(text.stderr);
  output('exit-code', json.status);
  if (json.status !== 0 && json.status !== 1) {
    const error = (json.stderr.trim() || text.stderr.trim() || `kvscope exited with ${json.status}`).split('\n')[0];
    summary(`### kvscope ${command}\n\n${error}\n`);
    return json.status;
  }
  const report = JSON.parse(json.stdout);
  const file = path.join(env.RUNNER_TEMP || tmpdir(), `kvscope-${command}-report.json`);
  writeFileSync(file, json.stdout);
  output('report', file);
  output('starts', typeof report.starts === 'boolean' ? report.starts : '');
  summary(reportMarkdown(command, report, text.stdout));
  return json.status;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
