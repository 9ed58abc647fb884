// The one way views build elements: createElement + textContent, never HTML strings, so no value
// (a model name from a config.json, a field from the URL) can become markup or script.

/** @typedef {Node|string|number|null|undefined|false|Array<Node|string|number|null|undefined|false|Array<any>>} Child */

/**
 * @param {string} tag
 * @param {Record<string, any>} [attrs] properties (class, id, ...), `on*` handlers, `data-*`/`aria-*`
 * @param {...Child} children strings become text nodes; arrays are spread
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'role' || key === 'for' ||
             key === 'scope' || key === 'colspan') el.setAttribute(key, String(value));
    else el[key] = value;
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a container's content with one element (or none). */
export function show(container, element) {
  container.replaceChildren(...(element ? [element] : []));
}

const shown = new WeakMap();  // container -> key of what it shows

/**
 * Shows `make()` in a container unless `key` (what the view reads, as JSON) is what it already
 * shows: a change re-creates only the panels whose data changed.
 */
export function showChanged(container, key, make) {
  const text = JSON.stringify(key);
  if (shown.get(container) === text) return;
  shown.set(container, text);
  show(container, make());
}

/**
 * Makes each `.scroll` box that overflows sideways focusable (so arrow keys scroll it) and names
 * it by its section's heading; a box that fits is left out of the Tab order.
 */
export function markScrollingRegions() {
  // Every width read before any attribute is written: one layout, not one per region.
  const regions = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('.scroll')]);
  const scrolls = regions.map((el) => el.scrollWidth > el.clientWidth + 1);
  regions.forEach((el, i) => {
    if (scrolls[i]) {
      const heading = el.closest('section')?.querySelector('h2')?.textContent ?? 'Table';
      const label = `${heading} (scrolls sideways)`;
      if (el.getAttribute('aria-label') === label && el.tabIndex === 0) return;
      el.tabIndex = 0;
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', label);
    } else if (el.hasAttribute('tabindex')) {
      for (const a of ['tabindex', 'role', 'aria-label']) el.removeAttribute(a);
    }
  });
}

/** Saves `text` as a file named `filename`: a Blob link, clicked (no inline script needed). */
export function downloadText(filename, text, type) {
  const href = URL.createObjectURL(new Blob([text], { type }));
  h('a', { href, download: filename }).click();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}
