// The one importer of the WebAssembly module: loads it once, runs kvscope commands, returns plain
// objects and throws KvscopeError (code, field) for every error the core reports.
// The commands and their options are the CLI's (`kvscope --help`), so the page, the node tests
// and the command line share one vocabulary and produce the same JSON.

/** An error the core reported, or an internal failure of the module. */
export class KvscopeError extends Error {
  /**
   * @param {string} code  invalid_value | invalid_json | missing_field | out_of_range |
   *                       unsupported | unknown_id | internal_error
   * @param {string} field the input it concerns: a CLI flag ("--context") or a config.json path
   * @param {string} message one line, naming the field
   */
  constructor(code, field, message) {
    super(message);
    this.name = 'KvscopeError';
    this.code = code;
    this.field = field;
  }
}

/**
 * Options of a command: keys are the CLI's flags without dashes, in snake_case
 * ({gpu_memory_utilization: 0.95} is --gpu-memory-utilization 0.95). `true` is a bare switch,
 * an array repeats the flag (set: ['sliding_window=4096']), null/undefined/false are left out.
 * A file option (`config`, `weights_index`, `quantization_config`) is {name, text}: the file's
 * content itself, in place of a path.
 * @typedef {Record<string, string|number|boolean|string[]|null|undefined|{name: string, text: string}>} CommandOptions
 */

/**
 * The CLI arguments for a command's options, in a stable order (the object's key order).
 * @param {CommandOptions} options
 * @returns {string[]}
 */
export function toArgs(options) {
  const args = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === null || value === undefined || value === false) continue;
    const flag = `--${key.replace(/_/g, '-')}`;
    if (isFile(value)) args.push(flag, String(value.name || key));
    else if (value === true) args.push(flag);
    else if (Array.isArray(value)) for (const v of value) args.push(flag, String(v));
    else args.push(flag, String(value));
  }
  return args;
}

/** @returns {value is {name: string, text: string}} */
function isFile(value) { return typeof value === 'object' && !Array.isArray(value) && 'text' in value; }

/**
 * The files a command's options carry, by the name its flag gives.
 * @param {CommandOptions} options
 * @returns {Record<string, string>}
 */
export function filesOf(options) {
  const files = {};
  for (const [key, value] of Object.entries(options)) {
    if (value && isFile(value)) files[String(value.name || key)] = String(value.text);
  }
  return files;
}

const moduleUrl = new URL('./wasm/kvscope_module.mjs', import.meta.url);

/** @type {Promise<Kvscope>|null} */
let loading = null;

/**
 * Loads the module once (later calls share it) and resolves to the client.
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array}} [init] node passes the .wasm bytes
 * @returns {Promise<Kvscope>}
 */
export function loadKvscope(init = {}) {
  if (!loading) {
    loading = import(moduleUrl.href)
      .then((m) => m.default({ ...init }))
      .then((module) => new Kvscope(module, init));
    loading.catch(() => { loading = null; });  // a failed fetch may succeed on the next call
  }
  return loading;
}

/** How many times the module has been instantiated in this page (tests read it). */
export let instantiations = 0;

export class Kvscope {
  constructor(module, init) {
    instantiations += 1;
    this.module = module;
    this.init = init;
    this.dead = false;
  }

  /** KV bytes per token, per sequence and per layer group (kvscope.report/1). */
  estimate(options) { return this.run('estimate', options); }
  /** The engine's budget on a card, capacity, start-up verdict, roofline (kvscope.report/1). */
  plan(options) { return this.run('plan', options); }
  /** Chart series over context and batch (kvscope.sweeps/1). */
  sweep(options) { return this.run('sweep', options); }
  /** The model catalogue (kvscope.models/1), each with its config.json. */
  models() { return this.run('models', {}); }
  /** The GPU catalogue (kvscope.gpus/1). */
  gpus() { return this.run('gpus', {}); }
  /** KV and weight dtypes with their storage cost (kvscope.dtypes/1). */
  dtypes() { return this.run('dtypes', {}); }
  /**
   * Imports a config.json: the model shape, its layer groups and every assumption made.
   * @param {string} text  the file's content
   * @param {string} [name] shown in errors
   */
  importConfig(text, name = 'config.json') {
    return this.run('estimate', { config: { name, text } });
  }

  /**
   * Runs one command; returns its parsed JSON or throws KvscopeError.
   * @param {string} command estimate | plan | sweep | models | gpus | dtypes
   * @param {CommandOptions} options
   */
  run(command, options) {
    if (this.dead) throw new KvscopeError('internal_error', '', 'the module failed; load it again');
    let result;
    try {
      result = this.module.runCommand(command, toArgs(options), filesOf(options));
    } catch (e) {
      this.fail();  // a trap leaves the instance's memory in an unknown state
      throw new KvscopeError('internal_error', '', `module failure: ${e && e.message ? e.message : e}`);
    }
    const parsed = JSON.parse(result.json || '{}');
    if (result.status === 0) return parsed;
    const error = parsed.error || { code: 'internal_error', field: '', message: result.message };
    if (result.status !== 2) this.fail();
    throw new KvscopeError(error.code, error.field, error.message);
  }

  // Drops this instance: the next loadKvscope() instantiates a fresh module.
  fail() {
    this.dead = true;
    loading = null;
  }
}
