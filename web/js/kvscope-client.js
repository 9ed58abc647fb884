// The one importer of the WebAssembly modules: loads each once, sends kvscope.request/1 objects,
// returns the reports as plain objects and throws KvscopeError (code, field) for every error the
// core reports. A request's keys are the core's (`kvscope --help` lists each beside its flag), so
// the page, the node tests and the command line produce the same JSON for the same request.
// Two modules of the one core: the page's first load answers the sizing commands for the
// catalogue's models under vLLM and the plain arithmetic (it reads no config.json and plans no
// other engine: a request with a config, a what-if, a side file or another engine gets
// needs_full_module); the full one, fetched only when asked for ({full: true}), answers them and
// adds the solver and the log reader.
// Types: kvscope.d.ts beside this file.

/** An error the core reported, or an internal failure of the module. */
export class KvscopeError extends Error {
  /**
   * @param {string} code  invalid_value | invalid_json | missing_field | out_of_range |
   *                       unsupported | unknown_id | internal_error | needs_full_module (the
   *                       first module was asked to read a config or plan another engine than
   *                       vLLM: ask the full one)
   * @param {string} field the input it concerns: a request key ("context_tokens",
   *                      "vllm.gpu_memory_utilization") or a config.json path
   * @param {string} message one line, naming the field
   */
  constructor(code, field, message) {
    super(message);
    this.name = 'KvscopeError';
    this.code = code;
    this.field = field;
  }
}

// From the js/ folder's parent: the same URLs from this file and from the widget's bundle in embed/.
const moduleUrls = {
  sizing: new URL('../js/wasm/kvscope_module.mjs', import.meta.url),
  full: new URL('../js/wasm/kvscope_full_module.mjs', import.meta.url),
};

/** @type {Record<'sizing'|'full', Promise<Kvscope>|null>} (the full one resolves to a KvscopeFull) */
const loading = { sizing: null, full: null };

/**
 * Loads a module once (later calls share it) and resolves to its client: the sizing commands, or
 * with `full` also solve and explain (a larger module, fetched the first time it is asked for).
 * @overload
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array, full?: false}} [init] the .wasm bytes, if at hand
 * @returns {Promise<Kvscope>}
 */
/**
 * @overload
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array, full: true}} init the full .wasm's bytes, if at hand
 * @returns {Promise<KvscopeFull>}
 */
/**
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array, full?: boolean}} [init]
 * @returns {Promise<Kvscope>}
 */
export function loadKvscope(init = {}) {
  const { full = false, ...moduleInit } = init;
  const kind = full ? 'full' : 'sizing';
  if (!loading[kind]) {
    const Client = full ? KvscopeFull : Kvscope;
    // The .wasm is fetched and compiled while the glue is imported, not after it runs.
    const compiling = moduleInit.wasmBinary ? Promise.resolve(null) : compileModule(kind);
    loading[kind] = Promise.all([import(moduleUrls[kind].href), compiling])
      .then(([m, compiled]) => instantiate(m.default, moduleInit, compiled))
      .then((module) => new Client(module, kind));
    loading[kind].catch(() => { loading[kind] = null; });  // a failed fetch may succeed on the next call
  }
  return loading[kind];
}

/**
 * The kind's .wasm, compiled as it downloads, or from the whole file where the server does not
 * send it as application/wasm (which streaming compilation requires); under node (the npm
 * package), read from disk beside this file, as node's fetch reads no file: URL; null if it cannot
 * be fetched or compiled: the glue then tries itself and reports why.
 * @param {'sizing'|'full'} kind
 * @returns {Promise<WebAssembly.Module|null>}
 */
async function compileModule(kind) {
  try {
    const url = new URL(moduleUrls[kind].href.replace(/\.mjs$/, '.wasm'));
    if (url.protocol === 'file:') {
      const fsModule = 'node:fs/promises';  // not a literal: the page's bundles leave it alone
      const { readFile } = await import(fsModule);
      return await WebAssembly.compile(await readFile(url));
    }
    const response = await fetch(url.href, { credentials: 'same-origin' });
    if (!response.ok) return null;
    return /^application\/wasm\b/.test(response.headers.get('content-type') ?? '')
      ? await WebAssembly.compileStreaming(response) : await WebAssembly.compile(await response.arrayBuffer());
  } catch {
    return null;
  }
}

/**
 * Runs Emscripten's factory; with a compiled module, through its instantiateWasm hook (no fetch).
 * The glue reads wasmBinary and instantiateWasm only (INCOMING_MODULE_JS_API, wasm/CMakeLists.txt).
 * @param {(init: object) => Promise<any>} factory
 * @param {object} moduleInit
 * @param {WebAssembly.Module|null} compiled
 */
function instantiate(factory, moduleInit, compiled) {
  if (!compiled) return factory({ ...moduleInit });
  return new Promise((resolve, reject) => {
    /** @param {WebAssembly.Imports} imports @param {(instance: WebAssembly.Instance) => void} done */
    const instantiateWasm = (imports, done) => {
      WebAssembly.instantiate(compiled, imports).then(done, reject);
      return {};  // the exports arrive through done()
    };
    factory({ ...moduleInit, instantiateWasm }).then(resolve, reject);
  });
}

// Counted page-wide: the page's and the widget's bundles each hold a copy of this file.
const instancesKey = Symbol.for('kvscope.instantiations');

/**
 * How many times a module has been instantiated in this page, both kinds, by every copy of this
 * client (tests read it).
 * @returns {number}
 */
export function instantiations() {
  return /** @type {any} */ (globalThis)[instancesKey] ?? 0;
}

/** The sizing commands: estimate, plan, sweep, the catalogues and the command line. */
export class Kvscope {
  /** @param {any} module the instantiated module @param {'sizing'|'full'} kind which one */
  constructor(module, kind) {
    /** @type {any} */ (globalThis)[instancesKey] = instantiations() + 1;
    this.module = module;
    this.kind = kind;
    this.dead = false;
  }

  /** @param {import('./kvscope.js').EstimateRequest} request @returns {import('./kvscope.js').EstimateReport} */
  estimate(request) { return this.call('estimate', request); }
  /** @param {import('./kvscope.js').PlanRequest} request @returns {import('./kvscope.js').PlanReport} */
  plan(request) { return this.call('plan', request); }
  /** @param {import('./kvscope.js').SweepRequest} request @returns {import('./kvscope.js').SweepsReport} */
  sweep(request) { return this.call('sweep', request); }
  /** @returns {import('./kvscope.js').ModelCatalogue} */
  models() { return this.call('models', {}); }
  /** @returns {import('./kvscope.js').GpuCatalogue} */
  gpus() { return this.call('gpus', {}); }
  /** @returns {import('./kvscope.js').DtypeCatalogue} */
  dtypes() { return this.call('dtypes', {}); }
  /** The serving engines: knobs (request keys), what-if levers, workload. @returns {import('./kvscope.js').EngineCatalogue} */
  engines() { return this.call('engines', {}); }
  /**
   * Imports a config.json: the model shape, its layer groups and every assumption made.
   * @param {string} text  the file's content
   * @param {string} [name] shown in errors
   */
  importConfig(text, name = 'config.json') {
    return this.estimate({ config: { name, text } });
  }
  /**
   * The `kvscope` arguments (command first) that answer the same request; files by their name.
   * @param {'estimate'|'plan'|'sweep'|'solve'} command
   * @param {import('./kvscope.js').PlanRequest | import('./kvscope.js').SolveRequest} request
   * @returns {string[]}
   */
  commandLine(command, request) {
    return this.answer(() => this.module.commandLine(command, JSON.stringify(request)));
  }

  /**
   * Runs one command; returns its parsed JSON or throws KvscopeError.
   * @param {'estimate'|'plan'|'sweep'|'solve'|'explain'|'check'|'models'|'gpus'|'dtypes'|'engines'} command
   *   (solve, explain and check: the full module's)
   * @param {object} request a kvscope.request/1 object (null values count as left out)
   */
  call(command, request) {
    return this.answer(() => this.module[command](JSON.stringify(request)));
  }

  /** @param {() => {status: number, json: string, message: string}} run */
  answer(run) {
    if (this.dead) throw new KvscopeError('internal_error', '', 'the module failed; load it again');
    let result;
    try {
      result = run();
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

  // Drops this instance: the next load of its kind instantiates a fresh module.
  fail() {
    this.dead = true;
    loading[this.kind] = null;
  }
}

/** The full module's client: the sizing commands, the solver, the log reader and check. */
export class KvscopeFull extends Kvscope {
  /**
   * The target (`concurrency` sequences of `context_tokens`) to the cheapest layout per GPU type.
   * A target no option meets is an answer (`met: false`), not an error.
   * @param {import('./kvscope.js').SolveRequest} request @returns {import('./kvscope.js').SolveReport}
   */
  solve(request) { return this.call('solve', request); }
  /**
   * A start-up log read: each figure it printed beside kvscope's (exact / rounding / differs, with
   * the reason), and the plan it describes, calibrated with what the engine measured.
   * @param {import('./kvscope.js').ExplainRequest} request @returns {import('./kvscope.js').ExplainReport}
   */
  explain(request) { return this.call('explain', request); }
  /**
   * A launch command as pasted, checked: does it start, the changes that make it start, the
   * flags kvscope does not model. One that will not start is an answer (`starts: false`).
   * @param {import('./kvscope.js').CheckRequest} request @returns {import('./kvscope.js').CheckReport}
   */
  check(request) { return this.call('check', request); }
}
