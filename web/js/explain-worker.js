// "Explain my log" off the page's thread: the full module (the log reader and the launch-command
// check are not in the page's first one) reads the paste, so one of up to 16 MiB (seconds of
// parsing in WebAssembly) never blocks the page. A paste with figures is a log; one without (or
// not a log at all) that holds an engine's command is checked on the page's card. Messages:
// {id, request: {log}, fallback, card} in; {id, kind: 'explain' | 'check', report, modelFromPage}
// or {id, error: {code, field, message}} out.
import { loadKvscope, KvscopeError } from './kvscope-client.js';

const scope = /** @type {any} */ (self);  // a DedicatedWorkerGlobalScope

/**
 * `ask(request)`, or, where the paste names no model kvscope knows, `ask` with the page's
 * (`fallback`, a model source); `field`/`code` say which error means that.
 */
function withFallback(ask, request, fallback, isUnnamed) {
  try {
    return { report: ask(request), modelFromPage: '' };
  } catch (e) {
    if (!(e instanceof KvscopeError) || !isUnnamed(e) || !fallback) throw e;
    return { report: ask({ ...request, ...fallback }), modelFromPage: fallback.model ?? fallback.config.name };
  }
}

/** @param {import('./kvscope-client.js').KvscopeFull} kv */
function read(kv, request, fallback, card) {
  let explained = null;
  let notALog = null;
  try {
    explained = withFallback((r) => kv.explain(r), request, fallback, (e) => e.field === 'model');
  } catch (e) {
    if (!(e instanceof KvscopeError) || e.field !== 'log') throw e;
    notALog = e;
  }
  if (explained && explained.report.figures.length > 0) return { kind: 'explain', ...explained };
  try {
    const checked = withFallback((r) => kv.check(r), { launch: request.log.text, ...card }, fallback,
      (e) => e.field === 'launch' && e.code === 'unknown_id');
    return { kind: 'check', ...checked };
  } catch (e) {
    // No command in it either: the log reader's answer (or its reason) stands.
    if (!(e instanceof KvscopeError) || e.field !== 'launch' || e.code === 'unknown_id') throw e;
  }
  if (explained) return { kind: 'explain', ...explained };
  throw notALog;
}

scope.onmessage = async ({ data }) => {
  try {
    const kv = await loadKvscope({ full: true });  // the first message fetches it; a failed load, the next again
    scope.postMessage({ id: data.id, ...read(kv, data.request, data.fallback, data.card) });
  } catch (e) {
    const error = e instanceof KvscopeError ? { code: e.code, field: e.field, message: e.message }
      : { code: 'internal_error', field: '', message: `the log reader failed: ${e?.message ?? e}` };
    scope.postMessage({ id: data.id, error });
  }
};
