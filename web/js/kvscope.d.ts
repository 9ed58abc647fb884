// Types of kvscope's JS API: the kvscope.request/1 objects the client sends and the reports it
// returns (kvscope.report/1, kvscope.sweeps/1, the catalogues). Written by hand beside the core's
// field table (core/src/request/request_fields.cpp) and report writer (core/src/request/report_json.cpp);
// `tsc --checkJs` in the tests holds the client, the state and the views against it.

/** Bytes (a count, not GB or GiB). */
type Bytes = number;
/** Tokens. */
type Tokens = number;

/** A file's content sent in place of a path; `name` is shown in messages. */
export interface FileInput {
  name?: string;
  text: string;
}

/** What estimate reads: the model, its dtypes and the workload line. `null` = left out. */
export interface EstimateRequest {
  schema?: 'kvscope.request/1';
  command?: 'estimate' | 'plan' | 'sweep' | 'solve';
  /** A catalogue id; exactly one of model and config. */
  model?: string | null;
  config?: FileInput | null;
  kv_dtype?: string | null;
  state_dtype?: string | null;
  ssm_state_dtype?: string | null;
  /** Default: the model's max_position_embeddings. */
  context_tokens?: Tokens | null;
  batch?: number | null;
  block_size_tokens?: Tokens | null;
  shared_prefix_tokens?: Tokens | null;
  /** estimate: the projection count (with output_tokens); plan: the prefill length. */
  prompt_tokens?: Tokens | null;
  output_tokens?: Tokens | null;
}

export interface VllmOptions {
  gpu_memory_utilization?: number | null;
  max_num_batched_tokens?: Tokens | null;
  disable_hybrid_kv_cache_manager?: boolean | null;
  /** --disable-sliding-window: every layer full length, max_model_len at most the window. */
  disable_sliding_window?: boolean | null;
  mamba_cache_mode?: 'none' | 'align' | 'all' | null;
  /** --enable-prefix-caching: hybrids keep their states in align mode from the 0.21 line. */
  enable_prefix_caching?: boolean | null;
  /** --enable-expert-parallel: a MoE model's experts whole over the tp x dp GPUs, not sliced. */
  enable_expert_parallel?: boolean | null;
  activation_bytes?: Bytes | null;
  non_torch_bytes?: Bytes | null;
  cudagraph_bytes?: Bytes | null;
  /** Blocks to use instead of those it computed (--num-gpu-blocks-override). */
  num_gpu_blocks_override?: number | null;
  /** V0: CPU swap space per GPU (--swap-space), the # CPU blocks. */
  swap_space_bytes?: Bytes | null;
  /** 0.7: VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE (MLA rows padded to 256 bytes); default true. */
  mla_cuda_mem_align_kv_cache?: boolean | null;
}

export interface SglangOptions {
  mem_fraction_static?: number | null;
  /** --enable-dp-attention: data_parallel attention ranks inside tensor_parallel GPUs. */
  enable_dp_attention?: boolean | null;
  mamba_full_memory_ratio?: number | null;
  max_mamba_cache_size?: number | null;
  max_running_requests?: number | null;
  disable_radix_cache?: boolean | null;
  swa_full_tokens_ratio?: number | null;
  disable_hybrid_swa_memory?: boolean | null;
}

export interface TensorrtLlmOptions {
  free_gpu_memory_fraction?: number | null;
  /** kv_cache_config.max_tokens: the KV cache's tokens at most. */
  max_tokens?: number | null;
  /** kv_cache_config.max_gpu_total_bytes: its bytes at most. */
  max_gpu_total_bytes?: Bytes | null;
}

export interface LlamaCppOptions {
  parallel?: number | null;
  ubatch?: number | null;
  kv_unified?: boolean | null;
  n_gpu_layers?: number | null;
  tensor_split?: number[] | null;
  swa_full?: boolean | null;
  kv_offload?: boolean | null;
  mla_v_cache?: boolean | null;
  legacy_mla_gguf?: boolean | null;
  output_layer_last?: boolean | null;
  v_dtype?: string | null;
  /** -fa; builds of 2025 pad caches to 32 cells without it. Default true. */
  flash_attn?: boolean | null;
}

/** Ollama's settings (`ollama serve`'s environment, a Modelfile's PARAMETERs). */
export interface OllamaOptions {
  /** OLLAMA_CONTEXT_LENGTH / PARAMETER num_ctx; null = its default by VRAM. */
  num_ctx?: Tokens | null;
  /** OLLAMA_NUM_PARALLEL, default 1. */
  num_parallel?: number | null;
  /** OLLAMA_KV_CACHE_TYPE: f16 | q8_0 | q4_0. */
  kv_cache_type?: string | null;
  /** OLLAMA_FLASH_ATTENTION: auto | on | off. */
  flash_attention?: string | null;
  num_batch?: number | null;
  /** PARAMETER num_gpu (layers on the GPUs); null = as many as fit. */
  num_gpu?: number | null;
}

export type EngineId = 'plain' | 'vllm' | 'sglang' | 'tensorrt-llm' | 'llama.cpp' | 'ollama';

/** What plan reads: estimate's inputs, the card, the layout and the engine with its knobs. */
export interface PlanRequest extends EstimateRequest {
  /** Launch commands serve a catalogue model's base checkpoint (hf_id), not its chat one (serve_id). */
  serve_base?: boolean | null;
  weights_index?: FileInput | null;
  quantization_config?: FileInput | null;
  /** config.json what-ifs: a string is read as FIELD=TEXT (JSON if it parses), else the value. */
  set?: Record<string, unknown> | null;
  weight_dtype?: string | null;
  prompt_lengths?: string | null;
  output_lengths?: string | null;
  engine?: EngineId | string | null;
  /** Layers of each pipeline stage (VLLM_PP_LAYER_PARTITION / SGLANG_PP_LAYER_PARTITION); null: even. */
  pp_layer_partition?: number[] | null;
  /** A version line of the engine (EngineInfo.versions id) or a release ("0.15.2"); null: its current. */
  engine_version?: string | null;
  /** A catalogue GPU; or a card of gpu_memory_bytes; or the KV budget itself. */
  gpu?: string | null;
  gpu_memory_bytes?: Bytes | null;
  kv_memory_bytes?: Bytes | null;
  gpu_bandwidth_bytes_per_s?: number | null;
  gpu_dense_tflops?: number | null;
  gpus?: number | null;
  tensor_parallel?: number | null;
  pipeline_parallel?: number | null;
  /** --dp: tp x pp x dp GPUs (vLLM --data-parallel-size); SGLang with DP attention: ranks inside --tp. */
  data_parallel?: number | null;
  max_model_len?: Tokens | null;
  /** The target: N sequences of context_tokens (default: batch); `met` in the report says whether they fit. */
  require_concurrency?: number | null;
  weights_bytes?: Bytes | null;
  overhead_bytes?: Bytes | null;
  allow_long_context?: boolean | null;
  /** vLLM's --speculative-config, as an object or its JSON text. */
  speculative_config?: Record<string, unknown> | string | null;
  vllm?: VllmOptions | null;
  sglang?: SglangOptions | null;
  tensorrt_llm?: TensorrtLlmOptions | null;
  llama_cpp?: LlamaCppOptions | null;
  ollama?: OllamaOptions | null;
}

export interface SweepRequest extends PlanRequest {
  sweep?: {
    points?: number | null;
    min_context_tokens?: Tokens | null;
    max_context_tokens?: Tokens | null;
    max_batch?: number | null;
  } | null;
}

/**
 * What solve reads: the model, the engine and its knobs, the target, and what it may choose. The
 * layout, the KV dtype and the weights are the solver's (`kv_dtypes`, `weight_dtypes`).
 */
export interface SolveRequest extends Omit<PlanRequest, 'gpu' | 'kv_dtype' | 'weight_dtype' | 'batch' |
  'gpus' | 'tensor_parallel' | 'pipeline_parallel' | 'max_model_len' | 'require_concurrency' |
  'kv_memory_bytes' | 'shared_prefix_tokens' | 'output_tokens'> {
  /** The target: this many sequences of context_tokens at once, over every replica. */
  concurrency: number;
  /** GPU types to consider (catalogue ids); default every one, and a card of gpu_memory_bytes as "custom". */
  gpu?: string[] | null;
  max_gpus?: number | null;
  /** Tensor parallelism within a node (default 8). */
  max_tp?: number | null;
  max_pp?: number | null;
  /** Default the engine's choices ("auto" = the model's dtype, "fp8"). */
  kv_dtypes?: string[] | null;
  /** "auto" (the checkpoint), a weight dtype, or a catalogue checkpoint's id. */
  weight_dtypes?: string[] | null;
  min_decode_tokens_per_s?: number | null;
  max_ttft_s?: number | null;
  /** $ per GPU-hour by GPU id ("custom" for gpu_memory_bytes' card); overrides the catalogue's. */
  prices_usd_per_hour?: Record<string, number> | null;
}

/**
 * What explain reads: the start-up log, and what it may not say (the model, the card, the engine's
 * flags), as for plan.
 */
export interface ExplainRequest extends Partial<Omit<PlanRequest, 'model' | 'config'>> {
  log: FileInput;
  model?: string | null;
  config?: FileInput | null;
}

/**
 * What check reads: a launch command as pasted (vllm serve, python -m sglang.launch_server,
 * trtllm-serve, llama-server, Ollama's environment with ollama run or a Modelfile), and the card,
 * model or what-ifs to plan it with (the launch's flags win elsewhere).
 */
export interface CheckRequest {
  launch: string;
  gpu?: string | null;
  gpu_memory_bytes?: number | null;
  gpus?: number | null;
  model?: string | null;
  config?: FileInput | null;
  set?: Record<string, unknown> | null;
  weight_dtype?: string | null;
  engine_version?: string | null;
}

/** What kvscope made of one flag, environment variable or Modelfile PARAMETER. */
export interface LaunchFlag {
  flag: string;
  value: string | null;
  effect: 'modelled' | 'no_memory_effect' | 'not_modelled' | 'unknown';
  /** The request key it set (modelled). */
  key: string | null;
  /** The `kvscope plan` flag it became (modelled). */
  plan_flag: string | null;
  note: string;
}

/** kvscope.check/1: a launch command checked. */
export interface CheckReport {
  schema: 'kvscope.check/1';
  kvscope_version: string;
  launch: {
    engine: EngineId;
    program: string;
    model: string;
    /** The catalogue model it was planned as. */
    model_id: string;
    /** A container image's release tag, as the engine version. */
    engine_version: string | null;
    flags: LaunchFlag[];
  };
  assumptions: string[];
  /** The `kvscope plan` arguments of the same plan; null when a value was refused first. */
  plan_command: string[] | null;
  /** The same plan as a kvscope.request/1 for plan (null when plan_command is). */
  plan_request: PlanRequest | null;
  starts: boolean;
  startup_error: string | null;
  findings: { severity: 'error' | 'warning' | 'note'; flag: string | null; message: string }[];
  /** Changes that make a refused launch start, each with the user's command edited. */
  fixes: { change: string; why: string; launch_command: string; max_model_len: number; sequences_that_fit: number | null }[];  // null under llama.cpp and Ollama (buffers sized to order)
  plan: PlanReport | null;
}

/** One figure a log printed, beside kvscope's at the printed precision. */
export interface ExplainedFigure {
  /** 1-based line of the log. */
  line: number;
  name: string;
  printed: string;
  /** null: kvscope has no figure to set beside it. */
  kvscope: string | null;
  unit: string;
  /** exact: the engine's digits; rounding: a budget inside the printed one's rounding gives them. */
  match: 'exact' | 'rounding' | 'differs';
  /** Why it differs (always there when it does); how it matches through rounding. */
  reason: string | null;
  /** The arithmetic, one line. */
  derivation: string | null;
}

/** kvscope.explain/1 */
export interface ExplainReport {
  schema: 'kvscope.explain/1';
  kvscope_version: string;
  engine: 'vllm' | 'llama.cpp' | 'sglang' | 'tensorrt-llm';
  engine_label: string;
  engine_version: string | null;
  /** The engine's version line kvscope follows for the log. */
  modelled_version: { id: string; label: string } | null;
  model: { printed: string | null; id: string; name: string };
  /** What kvscope took from the log (and what it assumed where the log is silent). */
  arguments: Record<string, string>;
  figures: ExplainedFigure[];
  /** Figures the engine measured, taken as given (a budget). */
  inputs: Array<{ line: number; name: string; printed: string; unit: string }>;
  /** plan_request is the log's deployment with what the engine measured. */
  calibrated: boolean;
  calibration: string[];
  plan_request: PlanRequest & { schema: 'kvscope.request/1'; command: 'plan' };
  notes: string[];
  lines: number;
}

/** One layout in a solve report. `null`: not known (no price, no bandwidth) or not applicable. */
export interface SolveOption {
  gpu: string;
  gpu_name: string;
  gpus: number;
  tp: number;
  /** Pipeline stages; llama.cpp: the devices of one server (-sm layer). */
  pp: number;
  /** Replicas (llama.cpp: servers). */
  dp: number;
  kv_dtype: string;
  weight_dtype: string;
  /** The weight choice as the request names it: "auto", a dtype, or a catalogue checkpoint's id. */
  weights_choice: string;
  /** Another catalogue checkpoint the option serves (its id); null: the model's own. */
  checkpoint: string | null;
  max_model_len: Tokens;
  /** The engine's share of the card (vLLM gpu_memory_utilization, ...). */
  utilization: number | null;
  weights_bytes_per_gpu: Bytes;
  kv_pool_bytes_per_gpu: Bytes;
  /** The capacity: sequences of the target's context the layout holds at once (its plan's
   * totals.sequences_that_fit). */
  sequences_that_fit: number;
  /** The engine's own figure for the layout, at max_model_len (its plan's totals.max_concurrency). */
  max_concurrency: number;
  meets_target: boolean;
  binding_constraint: 'weights' | 'kv_pool' | 'heads' | 'layers' | 'context_limit' | 'running_requests' |
    'decode_speed' | 'ttft' | 'max_gpus' | 'card_format' | string | null;
  reason: string | null;
  margin: number;
  decode_tokens_per_s_per_user: number | null;
  decode_tokens_per_s: number | null;
  prefill_s: number | null;
  usd_per_hour: number | null;
  usd_per_user_hour: number | null;
  usd_per_million_output_tokens: number | null;
  /** $/hour over the best option's; 1 = a tie. */
  cost_vs_best: number | null;
  command: string;
  unexpressed: string[];
}

/** kvscope.solve/1 */
export interface SolveReport {
  schema: 'kvscope.solve/1';
  kvscope_version: string;
  model: { id: string | null; name: string };
  engine: string;
  engine_label: string;
  /** The engine's version line its plans follow; null for an engine with one. */
  engine_version: { id: string; label: string } | null;
  target: { concurrency: number; context_tokens: Tokens; prompt_tokens: Tokens;
    prompt_lengths: string | null; output_lengths: string | null;
    min_decode_tokens_per_s: number | null; max_ttft_s: number | null };
  search: { kv_dtypes: string[]; weight_dtypes: string[]; max_tp: number; max_pp: number;
    max_gpus: number; plans_run: number; ranking: string };
  /** Some option meets the target (the first does). */
  met: boolean;
  options: SolveOption[];
  gpus: Array<{
    gpu: string;
    name: string;
    memory_bytes: Bytes;
    usd_per_gpu_hour: number | null;
    price_source: string | null;
    met: boolean;
    best_gpus: number | null;
    plans_run: number;
    /** The solve's plan budget ran out before every layout of this GPU was tried (a note says so). */
    search_cut: boolean;
    /** Layouts with fewer GPUs than the best, and why each falls short. */
    cheaper_failures: SolveOption[];
  }>;
  notes: string[];
}

export interface DtypeInfo {
  name: string;
  bits_per_value: number;
  scale_bits_per_row: number;
  exact: boolean;
  description: string;
}

export interface LayerGroup {
  kind: string;
  attention: string;
  state: string | null;
  layer_count: number;
  layers: number[];
  kv_heads: number;
  k_head_dim: number;
  v_head_dim: number;
  window_tokens: Tokens | null;
  /** Compressed attention (DeepSeek-V4): tokens pooled into one compressed entry. */
  compress_ratio: number | null;
  state_values_per_layer: number;
  kv_bytes_per_token_per_layer: Bytes;
  kv_bytes_per_token: Bytes;
  kv_bytes_per_token_formula: string;
  kept_tokens_per_sequence: Tokens;
  allocated_tokens_per_sequence: Tokens;
  /** A compressed entry of every layer of the group (latent and indexer key); 0 without. */
  compressed_bytes_per_entry: Bytes;
  compressed_entries_per_sequence: number;
  state_bytes_per_sequence: Bytes;
  kv_bytes_per_sequence: Bytes;
  kv_bytes_total: Bytes;
  shared_prefix_bytes: Bytes;
}

export interface ModelSummary {
  id: string | null;
  name: string;
  source: string;
  model_type: string;
  layers: number;
  hidden_size: number;
  num_attention_heads: number;
  head_dim: number;
  intermediate_size: number;
  vocab_size: number;
  max_position_embeddings: Tokens;
  tie_word_embeddings: boolean;
  torch_dtype: string;
  weight_dtype: string;
  draft_layers: number;
  moe: {
    num_experts: number;
    experts_per_token: number;
    shared_experts: number;
    expert_intermediate_size: number;
    shared_expert_intermediate_size: number;
  } | null;
  mla: {
    kv_lora_rank: number;
    qk_rope_head_dim: number;
    qk_nope_head_dim: number;
    v_head_dim: number;
    q_lora_rank: number;
  } | null;
}

/** kvscope.report/1 from estimate. */
export interface EstimateReport {
  schema: 'kvscope.report/1';
  kvscope_version: string;
  input: {
    model: string | null;
    config: string | null;
    kv_dtype: string;
    state_dtype: string;
    ssm_state_dtype: string;
    context_tokens: Tokens;
    batch: number;
    block_size_tokens: Tokens | null;
    shared_prefix_tokens: Tokens;
    prompt_tokens: Tokens | null;
    output_tokens: Tokens | null;
    /** plan only */
    engine?: string;
    engine_version?: string | null;
    gpu?: string | null;
    max_model_len?: Tokens;
    weight_dtype?: string;
  };
  model: ModelSummary;
  kv_dtype: DtypeInfo;
  kv_bytes_per_token: Bytes;
  /** Compressed attention: bytes each token adds on average to the compressed entries. */
  compressed_kv_bytes_per_token: number;
  kv_bytes_per_sequence: Bytes;
  kv_bytes_total: Bytes;
  recurrent_state_bytes_per_sequence: Bytes;
  shared_prefix_bytes: Bytes;
  kv_layers: number;
  kv_projections_without_cache: number | null;
  kv_projections_with_cache: number | null;
  layer_groups: LayerGroup[];
  assumptions: string[];
}

/** Unavailable (no published measurement for the GPU's class): only `reason`. */
export interface CalibratedDecode {
  available: boolean;
  reason?: string;
  method?: string;
  /** achieved / datasheet bandwidth of the measurement */
  kv_bandwidth_efficiency?: number;
  memory_time_s?: number;
  time_s?: number;
  tokens_per_s?: number;
  tokens_per_s_per_sequence?: number;
  measurement?: {
    device_class: string; measured_on: string; kernel: string; kv_dtype: string;
    batch: number; context_tokens: Tokens; achieved_bytes_per_s: number;
    datasheet_bytes_per_s: number; source: string; kind: string;
  };
}

export interface StepEstimate {
  weight_bytes_read: Bytes;
  kv_bytes: Bytes;
  flops: number;
  memory_time_s: number;
  compute_time_s: number;
  time_s: number;
  bound: string;
  tokens_per_s: number;
  /** MoE models only: distinct experts one step reads per MoE layer */
  experts_read_per_moe_layer?: number;
  batch?: number;
  context_tokens?: Tokens;
  tokens_per_s_per_sequence?: number;
  /** decode: data-parallel replicas sharing the batch (`batch` is per replica) */
  replicas?: number;
  /** decode: false when the KV pool holds fewer sequences of the context than `batch` */
  batch_fits_kv_pool?: boolean;
  prompt_tokens?: Tokens;
}

/** kvscope.report/1 from plan: estimate's report and the engine's figures per GPU. */
export interface PlanReport extends EstimateReport {
  /** The engine's version line the plan follows; null for an engine with one. */
  engine_version: { id: string; label: string } | null;
  gpu: { id: string | null; name: string; memory_bytes: Bytes | null };
  parameters: {
    total: number;
    active_per_token: number;
    embedding: number;
    lm_head: number;
    attention: number;
    recurrent: number;
    mlp: number;
    routed_experts: number;
    shared_experts: number;
    norms: number;
  };
  weight_dtype: DtypeInfo;
  weights_bytes: Bytes;
  weights: {
    method: string | null;
    source: string;
    exact: boolean;
    checkpoint_bytes: Bytes;
    computed_checkpoint_bytes: Bytes | null;
    bytes_per_gpu: Bytes;
    by_module: Array<{ module: string; format: string; params: number; bytes_per_gpu: Bytes; draft: boolean }>;
  };
  budget: {
    kv_memory_given: boolean;
    requested_bytes: Bytes;
    weights_bytes: Bytes;
    activation_bytes: Bytes;
    non_torch_bytes: Bytes;
    cudagraph_bytes: Bytes;
    kv_pool_bytes: Bytes;
  };
  /** vLLM: the budget terms kvscope estimates, as [low, high] from published measurements, and the capacity at each end; null when measured or given. */
  estimated_budget: {
    activation_bytes: [Bytes, Bytes];
    non_torch_bytes: [Bytes, Bytes];
    /** vLLM from 0.20: the CUDA-graph memory it estimates and keeps out of the pool ([0, 0]: none). */
    cudagraph_bytes: [Bytes, Bytes];
    kv_pool_bytes: [Bytes, Bytes];
    max_concurrency: [number, number];
    max_model_len_that_fits: [Tokens, Tokens];
    starts: [boolean, boolean];
    source: string;
  } | null;
  kv_pool_bytes: Bytes;
  block_size_tokens: Tokens | null;
  max_num_batched_tokens: Tokens | null;
  num_blocks: number;
  kv_pool_tokens: Tokens;
  /** vLLM V0: blocks of its CPU swap space ("# CPU blocks"). */
  swap_blocks: number | null;
  max_model_len: Tokens;
  context_limit: {
    tokens: Tokens;
    default_tokens: Tokens;
    derived_from: string;
    explanation: string;
    exceeded: boolean;
  } | null;
  kv_bytes_needed_for_max_model_len: Bytes;
  /** The capacity, per replica: sequences of the workload's context the pool holds (paged); null
   * for llama.cpp, which sizes its buffers to the request (its slots are max_concurrency). */
  sequences_that_fit: number | null;
  /** The engine's own figure, per replica, at max_model_len (vLLM's "Maximum concurrency"). */
  max_concurrency: number;
  /** The longest single sequence the pool holds; null: unbounded (no layer keeps tokens). */
  max_context: Tokens | null;
  swa_pool_tokens: Tokens | null;
  max_running_requests: number | null;
  /** vLLM's hybrid allocator: layers of each cache type in groups sharing one pool of blocks; null with one group. */
  kv_cache_groups: {
    group_size_layers: number;
    page_bytes: Bytes;
    /** Every group together, for one request of max_model_len: num_blocks / this = max_concurrency. */
    blocks_per_request: number;
    types: Array<{
      attention: 'full' | 'sliding_window' | 'chunked' | 'mamba' | 'compressed' | 'compressor_state';
      window_tokens: Tokens | null;
      layers: number;
      groups: number;
      padding_layers: number;
      block_tokens: Tokens;
      /** Of one group of this type, for one request of max_model_len. */
      blocks_per_request: number;
    }>;
  } | null;
  state_pool: {
    slots: number;
    conv_bytes_per_slot: Bytes;
    ssm_bytes_per_slot: Bytes;
    conv_dtype: string;
    ssm_dtype: string;
    reserved_bytes: Bytes;
    bytes: Bytes;
  } | null;
  starts: boolean;
  startup_error: string | null;
  max_model_len_that_fits: Tokens;
  parallelism: {
    tensor_parallel: number;
    pipeline_parallel: number;
    data_parallel: number;
    gpus: number;
    /** vLLM: a MoE model's experts spread over every data-parallel rank's GPUs (tp x dp); null otherwise. */
    experts_over_gpus: number | null;
    /** with --enable-expert-parallel: whole experts per GPU, not a slice of each */
    whole_experts: boolean;
    /** SGLang --enable-dp-attention: tensor_parallel is one rank's attention TP (--tp = it x data_parallel) */
    dp_attention: boolean;
    figures: string;
    stages: Array<{
      first_layer: number;
      layer_count: number;
      kv_heads_per_gpu: number;
      weights_bytes: Bytes;
      kv_pool_bytes: Bytes;
      num_blocks: number;
      max_concurrency: number;
      starts: boolean;
    }>;
  };
  totals: { weights_bytes: Bytes; kv_pool_bytes: Bytes; sequences_that_fit: number | null; max_concurrency: number };
  /** llama.cpp: per device, the CPU last; empty for the other engines. */
  devices: Array<{
    device: string;
    first_layer: number;
    layer_count: number;
    output_layer: boolean;
    weights_bytes: Bytes;
    kv_bytes: Bytes;
    state_bytes: Bytes;
    memory_bytes: Bytes;
    fits: boolean;
  }>;
  /** Ollama: the layers llama.cpp's --fit (or Ollama's layout) kept on the GPUs; null otherwise. */
  offload: {
    gpu_layers: number;
    layers: number;
    fit_margin_bytes: Bytes;
    compute_bytes: Bytes;
  } | null;
  /** Ollama: its settings as it resolved them; null for the other engines. */
  ollama: {
    num_ctx: Tokens;
    num_ctx_source: string;
    default_num_ctx: Tokens;
    total_vram_bytes: Bytes;
    num_parallel: number;
    kv_cache_type: string;
    flash_attention: boolean;
    num_batch: number;
  } | null;
  /** Unavailable (no bandwidth for the card): only `reason`. */
  roofline: {
    available: boolean;
    reason?: string;
    note?: string;
    bandwidth_bytes_per_s?: number;
    peak_flops?: number;
    peak_dtype?: string;
    decode?: StepEstimate;
    /** The decode step with the KV read at the efficiency of the nearest published kernel measurement on this GPU class (cited, not measured by kvscope). */
    decode_calibrated?: CalibratedDecode;
    prefill?: StepEstimate;
    kv_capped_batch?: number;
    decode_at_kv_capped_batch?: StepEstimate;
  };
  /** The engine's command that starts this plan; null for plain arithmetic. */
  launch_command: string | null;
  /** The batch and context asked for against the pools; null for llama.cpp (it sizes its buffers to the request). */
  target: {
    sequences: number;
    context_tokens: number;
    /** Pool bytes over one paged sequence's bytes, times the replicas. */
    sequences_that_fit: number;
    met: boolean;
    /** Why not, one line; null when met. */
    reason: string | null;
  } | null;
  /** What of the plan the launch command cannot set (a KV dtype the engine has no name for), one line each. */
  launch_unexpressed: string[];
  workload: {
    mean_prompt_tokens: number;
    mean_output_tokens: number;
    mean_tokens_held: number;
    mean_kv_bytes_per_sequence: number;
    stddev_kv_bytes_per_sequence: number;
    expected_concurrency: number;
    p99_concurrency: number;
    assumptions: string[];
  } | null;
  notes: string[];
}

/** A chart series: [x, y] points. */
export interface Series {
  name: string;
  points: Array<[number, number]>;
}

/** kvscope.sweeps/1 from sweep. */
export interface SweepsReport {
  schema: 'kvscope.sweeps/1';
  kvscope_version: string;
  model: string;
  engine: string;
  kv_bytes_vs_context: Series[];
  concurrency_vs_context: Series;
  step_time_s_vs_batch: Series;
  tokens_per_s_vs_batch: Series;
  kv_capped_batch: number;
  memory_breakdown_per_gpu: Record<string, Bytes>;
}

export interface ModelCatalogue {
  schema: 'kvscope.models/1';
  models: Array<{
    id: string;
    name: string;
    family: string;
    /** the checkpoint whose config.json this is (a base one for some) */
    hf_id: string;
    /** what launch commands serve: its chat / instruct checkpoint of the same shape, else hf_id */
    serve_id: string;
    aliases: string[];
    /** where its config.json was read (the listing carries no config: core/data/models.json has them) */
    source: string;
  }>;
}

export interface GpuCatalogue {
  schema: 'kvscope.gpus/1';
  gpus: Array<{
    id: string;
    name: string;
    vendor: string;
    memory_marketed: string;
    memory_bytes: Bytes;
    /** Citations (this, source, price_source): '' from the first module, which leaves them out
     * of its first load; the full module ({full: true}) and the CLI carry them. */
    memory_bytes_source: string;
    /** architecture and memory ("hopper-hbm"): which published decode measurements apply */
    device_class: string;
    /** NVIDIA compute capability ("9.0") or AMD gfx target ("gfx942"). */
    compute_capability: string;
    bandwidth_bytes_per_s: number;
    /** null where the datasheet gives none (the card has no such tensor cores) */
    bf16_dense_flops: number | null;
    fp8_dense_flops: number | null;
    /** Only on cards without bf16 (Volta, Turing), which run bf16 checkpoints in fp16. */
    fp16_dense_flops: number | null;
    source: string;
    /** A dated public on-demand list price per GPU-hour; null where none is cited. */
    usd_per_gpu_hour: number | null;
    price_source: string | null;
  }>;
}

export interface EngineInfo {
  id: string;
  label: string;
  /** The request key of its options ("vllm"); null for plain arithmetic. */
  options_key: string | null;
  /** What its capacity counts, one sentence. */
  workload: string;
  /** Request keys of the knobs it reads ("vllm.gpu_memory_utilization", "block_size_tokens"). */
  knobs: string[];
  /** Request keys of what its start-up log says it measured ("vllm.activation_bytes"), which explain's calibration sets. */
  calibration: string[];
  /** What-ifs: set `key` to `value`, or add `step` (from `from` when the knob is 0). */
  levers: Array<{ key: string; label: string; short_label: string; value?: number; step?: number; from?: number }>;
  /** plan reports a launch_command for it. */
  launches: boolean;
  /** What solve tries by default: KV dtypes, formats made at load, checkpoint methods served ("*" = any). */
  kv_dtype_choices: string[];
  load_time_weight_dtypes: string[];
  checkpoint_methods: string[];
  /** A replica is one server over its devices (llama.cpp -sm layer), not TP x PP. */
  one_server: boolean;
  /** Its version lines whose arithmetic differs, newest (the default) first; empty: one. */
  versions: EngineVersion[];
}

export interface EngineVersion {
  id: string;
  label: string;
  /** Releases it stands for ("0.10-0.13, 0.16-"); empty: chosen by id only. */
  releases: string;
  /** What it does that the next newer line does not. */
  differs: string;
  /** The line a request without engine_version gets: the newest (the list is newest first). */
  default: boolean;
}

export interface EngineCatalogue {
  schema: 'kvscope.engines/1';
  engines: EngineInfo[];
}

export interface DtypeCatalogue {
  schema: 'kvscope.dtypes/1';
  kv: DtypeInfo[];
  weight: DtypeInfo[];
}

/** The codes of core/include/kvscope/base/error.hpp: KvscopeError.code and ErrorReport's. */
export type ErrorCode = 'invalid_json' | 'missing_field' | 'invalid_value' | 'out_of_range' |
  'unsupported' | 'unknown_id' | 'internal_error' | 'needs_full_module';

/** kvscope.report/1 of a refused request (what the CLI prints with --json; the client throws it
 * as a KvscopeError): the one-line error and the request key that caused it. */
export interface ErrorReport {
  schema: 'kvscope.report/1';
  error: { code: ErrorCode; message: string; field: string };
}
