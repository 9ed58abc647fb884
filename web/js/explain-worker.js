// "Explain my log" off the page's thread: the full module (the log reader is not in the page's
// first one) reads the log, so a paste of up to 16 MiB (seconds of parsing in WebAssembly) never
// blocks the page. Messages: {id, request} in; {id, report, modelFromPage} or
// {id, error: {code, field, message}} out.
import { loadKvscope, KvscopeError } from './kvscope-client.js';

const scope = /** @type {any} */ (self);  // a DedicatedWorkerGlobalScope

/**
 * The log explained; one that names no model, for the page's (`fallback`, a model source).
 * @param {import('./kvscope-client.js').KvscopeFull} kv
 */
function explain(kv, request, fallback) {
  try {
    return { report: kv.explain(request), modelFromPage: '' };
  } catch (e) {
    if (!(e instanceof KvscopeError) || e.field !== 'model' || !fallback) throw e;
    return { report: kv.explain({ ...request, ...fallback }), modelFromPage: fallback.model ?? fallback.config.name };
  }
}

scope.onmessage = async ({ data }) => {
  try {
    const kv = await loadKvscope({ full: true });  // the first message fetches it; a failed load, the next again
    scope.postMessage({ id: data.id, ...explain(kv, data.request, data.fallback) });
  } catch (e) {
    const error = e instanceof KvscopeError ? { code: e.code, field: e.field, message: e.message }
      : { code: 'internal_error', field: '', message: `the log reader failed: ${e?.message ?? e}` };
    scope.postMessage({ id: data.id, error });
  }
};
