// A pasted launch command, checked: will it start on the page's card and why not, the changes
// that make it start (each the user's command edited, with a copy button), every flag and what
// kvscope made of it, and the button that plans the page from the command.
import { h } from '../dom.js';
import { commas, fixed } from '../format.js';

const EFFECT = { modelled: 'modelled', no_memory_effect: 'no memory effect', not_modelled: 'not modelled', unknown: 'unknown to kvscope' };

/** Starts or not, in a few words: the engine's own error follows among the findings. */
function headline(r) {
  const card = r.plan ? ` on ${r.plan.gpu.name}` : '';
  if (r.starts) {
    const fit = r.plan.sequences_that_fit;
    return `Starts${card}: max_model_len ${commas(r.plan.max_model_len)}${fit === null ? '' : `, ${fixed(fit, 2, 2)} sequences of it fit`}.`;
  }
  return `Will not start${card}${r.fixes.length ? `: ${r.fixes.length === 1 ? 'one change makes' : `${r.fixes.length} changes make`} it start` : ''}.`;
}

/**
 * @param {import('../kvscope').CheckReport} r
 * @param {{modelFromPage?: string, dropped?: string[], onUse?: () => void,
 *   onCopy?: (text: string, button: HTMLButtonElement) => void}} options
 *   modelFromPage: the page's model, used because kvscope does not know the command's; dropped:
 *   plan keys the page cannot carry; onUse: plan the page from the command
 */
export function checkView(r, { modelFromPage = '', dropped = [], onUse, onCopy } = {}) {
  const engine = r.launch.engine_version ? `${r.launch.engine} ${r.launch.engine_version}` : r.launch.engine;
  return h('div', { id: 'check-result' },
    h('p', { class: 'big', id: 'check-answer', 'aria-live': 'polite', 'data-starts': String(r.starts) }, headline(r)),
    h('p', { class: 'muted' },
      `A launch command for ${engine}: ${r.launch.model}${r.plan ? ` (${r.plan.model.name})` : ''}.`,
      modelFromPage ? ` kvscope does not know its model: the page's (${modelFromPage}) was used; change it above if it is another.` : '',
      r.assumptions.length ? ` Assumed: ${r.assumptions.join('; ')}.` : ''),
    r.findings.length ? h('ul', { class: 'notes', id: 'check-findings' }, r.findings.map((f) =>
      h('li', { 'data-severity': f.severity }, h('strong', {}, `${f.severity}: `), f.message))) : null,
    r.fixes.length ? h('div', { id: 'check-fixes' },
      h('p', {}, `${r.fixes.length === 1 ? 'A change that makes' : 'Changes that make'} it start, each your command edited:`),
      r.fixes.map((f, i) => h('div', { class: 'copy-row' },
        h('label', { for: `check-fix-${i}` }, h('code', {}, f.change), ` — ${f.why}: max_model_len ${commas(f.max_model_len)}`,
          f.sequences_that_fit === null ? '' : `, ${fixed(f.sequences_that_fit, 2, 2)} sequences of it fit`),
        h('div', { class: 'copy-field' },
          h('input', { id: `check-fix-${i}`, class: 'command', readOnly: true, value: f.launch_command, spellcheck: false }),
          onCopy ? h('button', { type: 'button', 'aria-label': `Copy the command with ${f.change}`, onclick: (e) => onCopy(f.launch_command, e.currentTarget) }, 'Copy') : null)))) : null,
    h('details', { id: 'check-flags' }, h('summary', {}, `Its ${commas(r.launch.flags.length)} flags, as kvscope read them`),
      h('div', { class: 'scroll' }, h('table', { class: 'check-flags' },
        h('thead', {}, h('tr', {}, ['flag', 'effect', 'note'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, r.launch.flags.map((f) => h('tr', { 'data-effect': f.effect },
          h('th', { scope: 'row' }, h('code', {}, f.value === null ? f.flag : `${f.flag} ${f.value}`)),
          h('td', {}, EFFECT[f.effect] ?? f.effect),
          h('td', { class: 'muted' }, f.note))))))),
    r.plan_request && onUse ? h('div', { id: 'check-plan' },
      h('button', { type: 'button', id: 'check-use', onclick: onUse }, 'Plan the page from this command'),
      dropped.length ? h('p', { class: 'muted' }, `The page has no control for ${dropped.join(', ')}: kvscope plan ${r.plan_command?.slice(1).join(' ')} uses them; the page keeps its own.`) : null) : null);
}
