// A report in words, for readers outside the page: one line that says the answer (kvscope-mcp
// puts it before the report JSON) and a Markdown section (the GitHub Action's step summary, the
// page's Markdown export of a plan). Pure: reports in, text out.
import { commas, fixed } from './format.js';

const bytes = (n) => `${fixed(n / 1e9, 2, 2)} GB (${fixed(n / 2 ** 30, 2, 2)} GiB)`;
const plural = (n, word) => `${commas(n)} ${word}${Math.round(n) === 1 ? '' : 's'}`;
const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);
const sequences = (n) => (n == null ? '–' : fixed(n, 2, 2));
/** What a plan that starts holds: sequences of its context, or only its max_model_len where the
 * engine sizes its buffers to the request (llama.cpp: no sequences_that_fit). */
const holds = (p) => (p.sequences_that_fit == null ? `max_model_len ${commas(p.max_model_len)}`
  : `${sequences(p.sequences_that_fit)} sequences of ${commas(p.target?.context_tokens ?? p.max_model_len)} tokens fit`);

/** The headline figures of a plan as [label, value, unit] rows (CSV and Markdown share them). */
export function summaryRows(r) {
  return [
    ['model', r.model.name, ''],
    ['engine', r.input.engine, ''],
    ['card', r.gpu.name, ''],
    ['gpus', r.parallelism.gpus, ''],
    ['kv_dtype', r.kv_dtype.name, ''],
    ['weight_dtype', r.weight_dtype.name, ''],
    ['max_model_len', r.max_model_len, 'tokens'],
    ['kv_bytes_per_token', r.kv_bytes_per_token, 'bytes'],
    ['kv_bytes_per_sequence', r.kv_bytes_per_sequence, 'bytes'],
    ['weights_bytes', r.weights_bytes, 'bytes per GPU'],
    ['kv_pool_bytes', r.kv_pool_bytes, 'bytes per GPU'],
    ['kv_pool_tokens', r.kv_pool_tokens, 'tokens'],
    ['sequences_that_fit', r.sequences_that_fit ?? '', `sequences of ${r.target?.context_tokens ?? r.max_model_len} tokens per replica (the capacity)`],
    ['max_concurrency', r.max_concurrency, 'requests of max_model_len, as the engine counts them'],
    ['max_context', r.max_context ?? 'unbounded', 'tokens'],
    ['starts', r.starts, ''],
    ['max_model_len_that_fits', r.max_model_len_that_fits, 'tokens'],
  ];
}

/** A Markdown table, pipes and line breaks in cells escaped. @param {string[]} header @param {any[][]} rows */
export function markdownTable(header, rows) {
  const cell = (v) => String(v ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n') + '\n';
}

/** `code` for a cell: a command shown as typed. */
const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;

/**
 * One line that says a command's answer.
 * @param {string} command estimate | plan | solve | explain | check | models | gpus | ...
 * @param {any} r the command's report
 */
export function reportLine(command, r) {
  switch (command) {
    case 'estimate':
      return `${r.model.name}: ${commas(r.kv_bytes_per_token)} bytes of KV per token; ${bytes(r.kv_bytes_total)} for ${plural(r.input.batch, 'sequence')} of ${commas(r.input.context_tokens)} tokens (KV ${r.kv_dtype.name}).`;
    case 'plan':
      return r.starts
        ? `Starts on ${r.gpu.name}: a KV pool of ${bytes(r.kv_pool_bytes)} holds ${commas(r.kv_pool_tokens)} tokens; ${holds(r)}.`
        : `Will not start on ${r.gpu.name}: ${sentence(r.startup_error)}${r.max_model_len_that_fits ? ` The largest max_model_len that fits is ${commas(r.max_model_len_that_fits)}.` : ''}`;
    case 'solve': {
      const best = r.options.find((o) => o.meets_target);
      return best
        ? `Cheapest that meets the target: ${best.gpus} x ${best.gpu_name} (tp ${best.tp}, pp ${best.pp}, dp ${best.dp}, KV ${best.kv_dtype}, weights ${best.weight_dtype}), ${sequences(best.sequences_that_fit)} sequences fit${best.usd_per_hour != null ? `, $${fixed(best.usd_per_hour, 2, 2)}/hour` : ''}: ${best.command}`
        : `No layout meets the target; ${plural(r.options.length, 'option')} listed with what binds each.`;
    }
    case 'explain': {
      const by = (m) => r.figures.filter((f) => f.match === m).length;
      return `${r.engine_label} log, ${r.model ? r.model.name : 'model unnamed'}: ${plural(r.figures.length, 'figure')} read, ${by('exact')} exact, ${by('rounding')} within rounding, ${by('differs')} differ.`;
    }
    case 'check':
      return r.starts
        ? `Starts on ${r.plan.gpu.name}: ${holds(r.plan)}.`
        : `Will not start: ${sentence(r.startup_error)}${r.fixes.length ? ` Fix: ${r.fixes[0].launch_command}` : ''}`;
    case 'sweep':
      return `${r.model ? r.model.name : 'Sweeps'}: chart data.`;
    default: {  // the catalogues: {schema, <list>: [...]}
      const list = Object.values(r).find(Array.isArray) ?? [];
      return `${plural(list.length, { gpus: 'GPU', models: 'model', dtypes: 'dtype', engines: 'engine' }[command] ?? 'entry')}.`;
    }
  }
}

/** The command's own tables: what a reader of a step summary looks for first. */
function reportTables(command, r) {
  switch (command) {
    case 'plan':
      return markdownTable(['field', 'value', 'unit'], summaryRows(r)) +
        (r.launch_command ? `\nLaunch: ${code(r.launch_command)}\n` : '');
    case 'estimate':
      return markdownTable(['kind', 'layers', 'bytes per token', 'bytes per sequence'],
        r.layer_groups.map((g) => [g.kind, g.layer_count, commas(g.kv_bytes_per_token), commas(g.kv_bytes_per_sequence)]));
    case 'check':
      return (r.findings.length ? r.findings.map((f) => `- **${f.severity}**${f.flag ? ` ${code(f.flag)}` : ''}: ${f.message}`).join('\n') + '\n' : '') +
        (r.fixes.length ? `\n${markdownTable(['change', 'max_model_len', 'sequences that fit', 'command'],
          r.fixes.map((f) => [f.change, commas(f.max_model_len), sequences(f.sequences_that_fit), code(f.launch_command)]))}` : '');
    case 'solve':
      return markdownTable(['GPUs', 'tp x pp x dp', 'KV', 'weights', 'sequences that fit', 'meets', '$/hour', 'command'],
        r.options.slice(0, 10).map((o) => [`${o.gpus} x ${o.gpu_name}`, `${o.tp} x ${o.pp} x ${o.dp}`, o.kv_dtype, o.weight_dtype,
          sequences(o.sequences_that_fit), o.meets_target ? 'yes' : `no (${o.binding_constraint})`,
          o.usd_per_hour != null ? fixed(o.usd_per_hour, 2, 2) : '–', code(o.command)]));
    case 'explain':
      return markdownTable(['line', 'figure', 'printed', 'kvscope', 'unit', 'match'],
        r.figures.map((f) => [f.line, f.name, f.printed, f.kvscope, f.unit, f.match + (f.reason ? `: ${f.reason}` : '')]));
    default:
      return '';
  }
}

/**
 * A Markdown section for a command's answer: a heading, the line, the command's tables and the
 * CLI's text report folded away.
 * @param {string} command @param {any} r the report @param {string} [text] `kvscope`'s text output
 */
export function reportMarkdown(command, r, text = '') {
  const tables = reportTables(command, r);
  return `### kvscope ${command}\n\n${reportLine(command, r)}\n\n${tables ? `${tables}\n` : ''}` +
    (text ? `<details><summary>kvscope's report</summary>\n\n\`\`\`text\n${text.replace(/```/g, "'''").trimEnd()}\n\`\`\`\n\n</details>\n` : '');
}
