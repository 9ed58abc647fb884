// What the page's first module leaves to the full one (wasm/CMakeLists.txt): a config.json or its
// side files, and every engine but vLLM and the plain arithmetic (core/src/engines/engine_planners.hpp).
export const READS_CONFIGS = ['config', 'set', 'quantization_config', 'weights_index', 'speculative_config'];
export const FIRST_MODULE_ENGINES = ['vllm', 'plain'];

/** Whether a request needs the full module: the first one answers it with needs_full_module. */
export function needsFullModule(request) {
  return READS_CONFIGS.some((key) => request[key] != null) ||
    (request.engine != null && !FIRST_MODULE_ENGINES.includes(request.engine));
}
