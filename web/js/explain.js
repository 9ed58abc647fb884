// "Explain my log": the pasted or dropped start-up log read by the core in a worker (explain-worker.js:
// 16 MiB at most, the first 200 figures; nothing leaves the browser, the page never waits on it), its
// figures shown beside kvscope's (their view fetched with the log reader's first answer:
// full-views.js), and "Plan the page from this machine", which turns the calibrated plan into the
// page's scenario. A pasted launch command instead is checked on the page's card (will it start,
// the changes that make it start) and can be planned the same way.
import { KvscopeError } from './kvscope-client.js';
import { show } from './dom.js';
import { modelSource } from './state.js';
import { stateOfExplain, stateOfPlanRequest, uncalibrated } from './explain-state.js';
import { copy } from './sharing.js';
import { $, errorLine, loadFullViews, page, update } from './page.js';

const MAX_LOG_BYTES = 16 * 1024 * 1024;  // the core refuses more; a file is checked before reading
let logName = 'pasted log';

let worker = null;
let asked = 0;
let readerLoaded = false;  // the worker has answered once: the full module is there
const pending = new Map();

/** The paste read in the worker (started on first use); resolves to {kind, report, modelFromPage}. */
function explainOffThread(request, fallback, card) {
  if (!worker) {
    worker = new Worker(new URL('./explain-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => {
      const done = pending.get(data.id);
      pending.delete(data.id);
      readerLoaded = readerLoaded || data.error?.code !== 'internal_error';
      if (data.error) done?.reject(new KvscopeError(data.error.code, data.error.field, data.error.message));
      else done?.resolve(data);
    };
  }
  asked += 1;
  const id = asked;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, request, fallback, card });
  });
}

/**
 * Explains the log in the box (one that names no model, for the page's model), or checks the
 * launch command in it on the page's card.
 */
export async function runExplain() {
  const text = $('explain-log').value;
  if (!text.trim()) {
    $('explain-status').hidden = true;
    show($('explain-panel'), errorLine('log: paste a start-up log or a launch command, or choose a log file'));
    document.body.dataset.explained = 'error';
    return;
  }
  $('explain-status').textContent = readerLoaded ? 'Reading the log…'
    : 'Loading the log reader (the first time only), then reading the log…';
  $('explain-status').hidden = false;
  const fallback = modelSource(page.state);  // for a log that names no model
  const card = page.state.gpu === 'custom' ? { gpu_memory_bytes: page.state.gpu_memory_bytes } : { gpu: page.state.gpu };
  const configText = page.state.config;
  const mine = asked + 1;
  let answer, views;
  try {
    [answer, views] = await Promise.all([explainOffThread({ log: { name: logName, text } }, fallback, card),
      loadFullViews().catch((e) => { throw new KvscopeError('internal_error', '', `The log reader's figures cannot be shown: ${e.message}.`); })]);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    if (mine !== asked) return;  // a later paste is being read
    $('explain-status').hidden = true;
    show($('explain-panel'), errorLine(e.message));
    document.body.dataset.explained = 'error';
    return;
  }
  if (mine !== asked) return;
  $('explain-status').hidden = true;
  const { kind, report, modelFromPage } = answer;
  const pageConfig = modelFromPage && configText ? configText : '';
  const { state, dropped } = kind === 'check' ? stateOfPlanRequest(page.state, report.plan_request ?? {}, pageConfig)
    : stateOfExplain(page.state, report, pageConfig);
  const onUse = () => {
    page.state = state;
    update();
    $('verdict').scrollIntoView({ block: 'start' });
  };
  show($('explain-panel'), kind === 'check' ? views.checkView(report, { modelFromPage, dropped, onUse, onCopy: copy })
    : views.explainView(report, { modelFromPage, dropped, onUse }));
  document.body.dataset.explained = kind === 'check' ? 'check' : String(report.figures.length);
}

/** "Calibrated from your log" above the verdict while the state carries a log's measurements. */
export function renderCalibration() {
  const s = page.state;
  const box = $('calibrated');
  box.hidden = !s.from_log;
  if (!s.from_log) return;
  const what = s.kv_memory_bytes !== null ? 'the KV budget as the engine measured it'
    : s['vllm.activation_bytes'] !== null || s['vllm.non_torch_bytes'] !== null ? 'the usable memory, weights, activation peak and non-torch memory as the engine measured them'
      : 'its deployment as the log printed it, on the page\'s card (the log does not give its memory)';
  $('calibrated-text').textContent = `Calibrated from your log (${s.from_log}): ${what}.`;
}

function readFile(file) {
  if (file.size > MAX_LOG_BYTES) {
    show($('explain-panel'), errorLine(`log: ${file.name} is larger than 16 MiB`));
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    logName = file.name;
    $('explain-log').value = String(reader.result);
    runExplain();
  };
  reader.readAsText(file);
}

/** The box (paste or drop), the file chooser, the button and "back to the estimate". */
export function wireExplain() {
  $('explain-run').addEventListener('click', () => { runExplain(); });
  $('explain-log').addEventListener('input', () => { logName = 'pasted log'; });
  $('explain-file').addEventListener('change', (e) => {
    const file = /** @type {HTMLInputElement} */ (e.target).files?.[0];
    if (file) readFile(file);
  });
  const box = $('explain-log');
  box.addEventListener('dragover', (e) => e.preventDefault());
  box.addEventListener('drop', (e) => {
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    e.preventDefault();
    readFile(file);
  });
  $('calibrated-clear').addEventListener('click', () => { page.state = uncalibrated(page.state); update(); });
}
