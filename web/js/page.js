// The page's shared state and its error line: what the controller (app.js) and the modules beside
// it (controls, config sources, levers, pins, sharing) read and change.
import { DEFAULTS } from './state.js';

/**
 * @type {{state: any, kv: any, catalog: {models: any[], gpus: any[]}, last: any,
 *   whatIfOpen: boolean, embedAs: string, measuredRecords: any, engines?: any[]}}
 * last: {plan, sweeps, why} of the current state; embedAs: the view "Embed this" uses.
 */
export const page = {
  state: { ...DEFAULTS }, kv: null, catalog: { models: [], gpus: [] }, last: null,
  whatIfOpen: false, embedAs: 'startup', measuredRecords: null,
};

export const $ = (id) => document.getElementById(id);

let updateHook = () => {};
/** Recomputes and re-renders from the state (the controller's update, set by setUpdate). */
export function update(options) { updateHook(options); }
export function setUpdate(fn) { updateHook = fn; }

export function showInputError(message, controlId) {
  const box = $('input-error');
  box.hidden = false;
  box.textContent = message;
  document.body.dataset.error = message;
  if (controlId && $(controlId)) $(controlId).setAttribute('aria-invalid', 'true');
}

export function clearInputError() {
  $('input-error').hidden = true;
  delete document.body.dataset.error;
  for (const el of document.querySelectorAll('[aria-invalid="true"]')) el.setAttribute('aria-invalid', 'false');
}

export function errorLine(text) {
  const p = document.createElement('p');
  p.className = 'error-text';
  p.textContent = text;
  return p;
}
