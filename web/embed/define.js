// Registers <kv-cache-explorer>: the one module a host page loads. A host wanting another tag
// name imports KvCacheExplorer from ./kv-cache-explorer.js and defines it itself.
import { KvCacheExplorer } from './kv-cache-explorer.js';

if (!customElements.get('kv-cache-explorer')) customElements.define('kv-cache-explorer', KvCacheExplorer);
export { KvCacheExplorer };
