// The package's types: the client (js/kvscope-client.d.ts, generated from its JSDoc when it is
// packed) and the requests and reports it sends and returns (js/kvscope.d.ts).
export * from './js/kvscope-client.js';
export * from './js/kvscope.js';
