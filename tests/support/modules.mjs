// What the page's first module leaves to the full one (wasm/CMakeLists.txt): a config.json or its
// side files, every engine but vLLM and the plain arithmetic, and DeepSeek-V4's caches under vLLM
// (core/src/engines/engine_planners.hpp).
export const READS_CONFIGS = ['config', 'set', 'quantization_config', 'weights_index', 'speculative_config'];
export const FIRST_MODULE_ENGINES = ['vllm', 'plain'];
export const COMPRESSED_ATTENTION_MODELS = ['deepseek-v4-flash', 'deepseek-v4-pro'];

/** Whether a request needs the full module: the first one answers it with needs_full_module. */
export function needsFullModule(request) {
  return READS_CONFIGS.some((key) => request[key] != null) ||
    (request.engine != null && !FIRST_MODULE_ENGINES.includes(request.engine)) ||
    (request.command !== 'estimate' && COMPRESSED_ATTENTION_MODELS.includes(request.model) &&
      (request.engine ?? 'vllm') === 'vllm');
}
