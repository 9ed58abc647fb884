// web/embed.html: one <kv-cache-explorer> from the URL hash (field=value, as the page's permalink),
// and its height posted to the parent window on every change so the host can size the iframe:
// {type: "kvscope-embed-height", height, frame} (frame = the hash's "frame" value, if any).
import { KvCacheExplorer } from './define.js';
import { attributeOf, quote } from '../js/state.js';

const params = new URLSearchParams(location.hash.replace(/^#/, ''));
const widget = document.createElement('kv-cache-explorer');
const unknown = [];
for (const [key, value] of params) {
  const name = attributeOf(key);
  if (key === 'frame') continue;
  if (KvCacheExplorer.observedAttributes.includes(name)) widget.setAttribute(name, value);
  else unknown.push(quote(key));
}
if (unknown.length) {
  const p = document.createElement('p');
  p.className = 'unknown';
  p.textContent = `kvscope: unknown option ${unknown.join(', ')} in the URL (ignored)`;
  document.getElementById('frame').append(p);
}
document.getElementById('frame').append(widget);

let last = -1;
const post = () => {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === last || window.parent === window) return;
  last = height;
  window.parent.postMessage({ type: 'kvscope-embed-height', height, frame: params.get('frame') ?? '' }, '*');
};
new ResizeObserver(post).observe(document.documentElement);
widget.addEventListener('kvscope-result', post);
widget.addEventListener('kvscope-error', post);
