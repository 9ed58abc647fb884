// <kv-cache-explorer>: one answer of kvscope in a host page. Attributes in (the page's permalink
// fields in kebab-case, their old names too, plus view, controls, compare, labels, contexts,
// config-src), events out
// (kvscope-result, kvscope-error). All widgets share the client's one WebAssembly instance,
// loaded when the first widget becomes visible. The tag is defined in define.js, so a host can
// register this class under another name.
import { loadKvscope, KvscopeError } from '../js/kvscope-client.js';
import { h, show } from '../js/dom.js';
import { makeFormat } from '../js/format.js';
import {
  DEFAULTS, FIELDS, MOST_PINS, OLD_NAMES, WIDGET_VIEWS as VIEWS, attributeOf, checkField, engineDefaultOf, checkNamed, fieldOf,
  parseHash, planRequest, quote, scenarioHash, toHash, useEngines, whyCacheRequest,
} from '../js/state.js';
import { solveRequest } from '../js/solve-request.js';
import { verdictView } from '../js/views/verdict.js';
import { bytesPerTokenView } from '../js/views/kv.js';
import { concurrencyView, contextTableView } from '../js/views/capacity.js';
import { compareView } from '../js/views/compare.js';
import { whyCacheView } from '../js/views/why-cache.js';
import { solveView } from '../js/views/solve.js';
import { widgetSheet } from './widget-style.js';

/** The inputs a `controls` attribute may ask for, each with the field it changes. */
export const CONTROLS = {
  model: 'model', gpu: 'gpu', engine: 'engine', 'kv-dtype': 'kv_dtype', 'weight-dtype': 'weight_dtype',
  context: 'context_tokens', batch: 'batch', units: 'units', 'gpu-memory-utilization': 'vllm.gpu_memory_utilization',
};
// [attribute, name], the old names first: where a widget carries both, today's wins.
const STATE_ATTRIBUTES = [...Object.keys(OLD_NAMES), ...Object.keys(FIELDS).filter((f) => !['config', 'config_name', 'pins'].includes(f))]
  .map((name) => [attributeOf(name), name]);
const WIDGET_ATTRIBUTES = ['view', 'controls', 'compare', 'labels', 'contexts', 'config-src'];

/** The page's own link for a widget: where "open in kvscope" goes. */
const pageUrl = new URL('../index.html', import.meta.url);

export class KvCacheExplorer extends HTMLElement {
  static get observedAttributes() { return [...STATE_ATTRIBUTES.map(([a]) => a), ...WIDGET_ATTRIBUTES]; }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [widgetSheet];
    this.root = h('div', { class: 'widget', part: 'widget' });
    this.shadowRoot.append(this.root);
    this.visible = false;
    this.generation = 0;  // a newer render supersedes an older one still awaiting the module
    this.configCache = { url: '', text: '' };
  }

  connectedCallback() {
    if (this.observer || this.visible) return;
    if (!('IntersectionObserver' in window)) { this.visible = true; this.render(); return; }
    this.observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      this.observer.disconnect();
      this.visible = true;
      this.render();
    }, { rootMargin: '200px' });
    this.observer.observe(this);
  }

  disconnectedCallback() {
    this.observer?.disconnect();
    this.observer = null;
  }

  attributeChangedCallback() {
    if (this.visible) this.render();
  }

  /** The attributes as a checked state, or the first error (naming the attribute). */
  readState() {
    const state = { ...DEFAULTS };
    for (const [attribute, name] of STATE_ATTRIBUTES) {
      if (!this.hasAttribute(attribute)) continue;
      const checked = checkNamed(name, this.getAttribute(attribute), attribute);
      if (!checked.ok) return { error: new KvscopeError('invalid_value', attribute, checked.message) };
      state[checked.field] = checked.value;
    }
    const view = this.getAttribute('view') ?? 'startup';
    if (!VIEWS.includes(view)) return { error: new KvscopeError('invalid_value', 'view', `view: expected one of ${VIEWS.join(', ')}, got ${quote(view)}`) };
    const controls = (this.getAttribute('controls') ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = controls.find((c) => !Object.hasOwn(CONTROLS, c));
    if (unknown) return { error: new KvscopeError('invalid_value', 'controls', `controls: unknown control ${quote(unknown)} (known: ${Object.keys(CONTROLS).join(', ')})`) };
    return { state, view, controls };
  }

  async render() {
    const generation = ++this.generation;
    const read = this.readState();
    try {
      if (read.error) throw read.error;
      // The full module for the solver and a config (the first one reads none), fetched once.
      const configSrc = this.getAttribute('config-src');
      let kv = await loadKvscope({ full: read.view === 'solve' || Boolean(configSrc) });
      useEngines(kv.engines());
      if (configSrc) Object.assign(read.state, await this.fetchConfig(configSrc));
      if (generation !== this.generation) return;
      let result;
      try {
        result = this.compute(kv, read);
      } catch (e) {
        if (e?.code !== 'needs_full_module') throw e;
        kv = await loadKvscope({ full: true });  // what-ifs (set): the full module reads them
        if (generation !== this.generation) return;
        result = this.compute(kv, read);
      }
      const fmt = makeFormat(read.state.units);
      show(this.root, h('div', {},
        read.controls.length ? this.controlsView(kv, read, result) : null,
        h('div', { class: 'answer', part: 'answer' }, this.answerView(read, result, fmt)),
        h('p', { class: 'source' }, h('a', { href: this.pageHref(read), target: '_blank', rel: 'noopener' }, 'Open in kvscope'))));
      this.dispatchEvent(new CustomEvent('kvscope-result', { detail: { view: read.view, result }, bubbles: true, composed: true }));
    } catch (e) {
      if (generation !== this.generation) return;
      const error = e instanceof KvscopeError ? e : new KvscopeError('internal_error', '', String(e?.message ?? e));
      show(this.root, h('p', { class: 'error', role: 'alert' }, `kvscope: ${error.message}`));
      this.dispatchEvent(new CustomEvent('kvscope-error', { detail: { code: error.code, field: error.field, message: error.message }, bubbles: true, composed: true }));
    }
  }

  async fetchConfig(src) {
    const url = new URL(src, document.baseURI).href;
    if (this.configCache.url !== url) {
      let response;
      try { response = await fetch(url, { credentials: 'same-origin' }); } catch {
        throw new KvscopeError('invalid_value', 'config-src', `config-src: could not fetch ${quote(src)}`);
      }
      if (!response.ok) throw new KvscopeError('invalid_value', 'config-src', `config-src: HTTP ${response.status} for ${quote(src)}`);
      this.configCache = { url, text: await response.text() };
    }
    return { config: this.configCache.text, config_name: src };
  }

  /** The core's answer for the view: one plan, or several (context-sweep, compare), or an estimate. */
  compute(kv, { state, view }) {
    if (view === 'projections') return kv.estimate(whyCacheRequest(state));
    if (view === 'solve') return kv.solve(solveRequest(state));
    if (view === 'context-sweep') {
      const contexts = (this.getAttribute('contexts') ?? '4096,8192,32768,131072').split(/[\s,]+/).filter(Boolean);
      return contexts.map((c) => {
        const checked = checkField('context_tokens', c, { as: 'contexts' });
        if (!checked.ok) throw new KvscopeError('invalid_value', 'contexts', checked.message);
        return kv.plan(planRequest({ ...state, context_tokens: checked.value }));
      });
    }
    if (view === 'compare') {
      return this.scenarios(state).map(({ hash, label, scenario }) => ({ hash, label, report: kv.plan(planRequest(scenario)) }));
    }
    return kv.plan(planRequest(state));
  }

  /** The compare attribute's scenarios: the widget's state with each one's fields applied. */
  scenarios(state) {
    const hashes = (this.getAttribute('compare') ?? '').split('|').map((x) => x.trim()).filter(Boolean);
    const labels = (this.getAttribute('labels') ?? '').split('|').map((x) => x.trim());
    if (!hashes.length) throw new KvscopeError('missing_field', 'compare', 'compare: give scenarios as permalink fields separated by |, e.g. "kv_dtype=fp16 | kv_dtype=fp8"');
    if (hashes.length > MOST_PINS) throw new KvscopeError('invalid_value', 'compare', `compare: ${MOST_PINS} scenarios at most (the explorer's pins), got ${hashes.length}`);
    return hashes.map((hash, i) => {
      const { state: changes, refused } = parseHash(hash);
      if (refused.length) throw new KvscopeError('invalid_value', 'compare', `compare: ${refused[0].message}`);
      const scenario = { ...state };
      for (const [key] of new URLSearchParams(hash)) scenario[fieldOf(key)] = changes[fieldOf(key)];
      return { hash, label: labels[i] || `scenario ${i + 1}`, scenario };
    });
  }

  answerView({ state, view }, result, fmt) {
    switch (view) {
      case 'bytes-per-token': return bytesPerTokenView(result, fmt);
      case 'concurrency': return concurrencyView(result, fmt);
      case 'context-sweep': return h('div', { class: 'scroll' }, contextTableView(result, fmt));
      case 'compare': return h('div', { class: 'scroll' }, compareView(result, fmt));
      case 'projections': return whyCacheView(result);
      case 'solve': return h('div', { class: 'scroll' }, solveView(result, fmt, { rows: 5 }));
      default: return verdictView(result, { onUseContext: (tokens) => this.setField('context_tokens', tokens) });
    }
  }

  /**
   * Sets a field as the host spelled it: the old name's attribute (in its unit) where the host
   * wrote that one, else today's.
   */
  setField(field, value) {
    const old = Object.keys(OLD_NAMES).find((name) => OLD_NAMES[name][0] === field && this.hasAttribute(attributeOf(name)));
    const scale = old ? OLD_NAMES[old][1] : undefined;
    if (old) this.setAttribute(attributeOf(old), String(scale ? Number(value) / scale : value));
    else this.setAttribute(attributeOf(field), String(value));
  }

  /** The inputs the host lets the reader change; a change sets the attribute. */
  controlsView(kv, { state, controls }, result) {
    const select = (name, options) => h('select', { onchange: (e) => this.setField(CONTROLS[name], e.target.value) },
      options.map(([value, label]) => h('option', { value, selected: String(state[CONTROLS[name]]) === value }, label)));
    // A knob left to the engine shows the engine's value as its placeholder.
    const shown = (field) => String((result?.budget && engineDefaultOf(result, field)) ?? '');
    const number = (name, attrs) => h('input', { type: 'number', value: String(state[CONTROLS[name]] ?? ''),
      placeholder: shown(CONTROLS[name]), ...attrs, onchange: (e) => this.setField(CONTROLS[name], e.target.value) });
    const make = {
      model: () => select('model', kv.models().models.map((m) => [m.id, m.name])),
      gpu: () => select('gpu', [['custom', `${state.gpu_memory_bytes / 1e9} GB card`], ...kv.gpus().gpus.map((g) => [g.id, g.name])]),
      engine: () => select('engine', kv.engines().engines.map((e) => [e.id, e.label])),
      'kv-dtype': () => select('kv-dtype', [['auto', 'auto'], ...kv.dtypes().kv.map((d) => [d.name, d.name])]),
      'weight-dtype': () => select('weight-dtype', [['auto', 'auto'], ...kv.dtypes().weight.map((d) => [d.name, d.name])]),
      context: () => number('context', { min: 1, step: 1 }),
      batch: () => number('batch', { min: 1, step: 1 }),
      'gpu-memory-utilization': () => number('gpu-memory-utilization', { min: 0.01, max: 1, step: 0.01 }),
      units: () => select('units', [['GiB', 'GiB (2^30)'], ['GB', 'GB (10^9)']]),
    };
    return h('form', { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() },
      controls.map((name) => h('label', {}, name.replace(/-/g, ' '), make[name]())));
  }

  /**
   * The explorer's permalink for what the widget shows: its scenario (a fetched config.json
   * included), the solver's answer for `solve`, and a compare widget's scenarios as the pins.
   */
  pageHref({ state, view }) {
    // The theme is the host's styling of the widget, not part of the scenario: the page keeps the reader's.
    const page = { ...state, theme: DEFAULTS.theme, solve: view === 'solve' ? 1 : state.solve };
    if (view === 'compare') {
      page.pins = JSON.stringify(this.scenarios(state).map(({ scenario }) => scenarioHash(scenario)));  // as the page pins
    }
    return `${pageUrl.href}#${toHash(page)}`;
  }
}
