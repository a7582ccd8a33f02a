import { BROWSER_MODEL_NAME } from './browser-model.ts';
import type { Capabilities, GpuInfo } from './capabilities.ts';
import { formatBytes } from './format-bytes.ts';
import type { ModelRef } from './model.ts';

/**
 * Which on-device model should plan, chosen from what the adapter can do.
 *
 * Pure: no web-llm import (its bundle is ~2 MB gzip and lives only in the thread). The few facts we need
 * about each candidate are copied from web-llm 0.2.86's `prebuiltAppConfig`; a unit test compares this
 * table with the real one so the two cannot drift apart.
 */

export type Quantization = 'q4f16_1' | 'q4f32_1';

export interface ConductorModelInfo {
  /** WebLLM prebuilt model id. */
  modelId: string;
  /** Display name ("Qwen3 4B"). */
  label: string;
  /** Billions of parameters, for ordering and for the reason text. */
  paramsB: number;
  quantization: Quantization;
  /** `vram_required_MB` from web-llm. */
  vramMB: number;
  /** `low_resource_required` from web-llm: runs where maxStorageBufferBindingSize is below 1 GiB. */
  lowResource: boolean;
  /** `required_features` from web-llm (shader-f16 for some q4f16_1 builds). */
  requiredFeatures: readonly string[];
  /** `buffer_size_required_bytes` from web-llm: the storage-buffer binding this model needs. */
  bufferSizeRequiredBytes?: number;
  /**
   * Qwen3 and Qwen3.5 think before answering unless told not to (`enable_thinking: false`): mlc-llm's `qwen3_5`
   * conversation template opens a `<think>` block on the generation prompt.
   */
  thinking: boolean;
  /**
   * Offered only by hand, never recommended: a 9B model plans at roughly half the speed of a 4B on the same
   * GPU, and planning speed is what the user waits for.
   */
  byHandOnly: boolean;
}

interface Family {
  stem: string;
  label: string;
  paramsB: number;
  thinking: boolean;
  /** [q4f16_1 MB, q4f32_1 MB] from web-llm's prebuiltAppConfig. */
  vramMB: readonly [number, number];
  lowResource: boolean;
  byHandOnly?: boolean;
}

/**
 * Conductor candidates in order of preference (best planner first). A newer generation comes first at a
 * similar size (Qwen3.5 over Qwen3 over Qwen2.5). Qwen3.5's 2B, 4B and 9B builds are not
 * `low_resource_required` in web-llm 0.2.86: they need 1 GiB storage-buffer bindings (`gpuRejects`), so a
 * GPU with smaller bindings falls through to Qwen3 4B.
 */
const FAMILIES: readonly Family[] = [
  {
    stem: 'Qwen3.5-9B',
    label: 'Qwen3.5 9B',
    paramsB: 9,
    thinking: true,
    vramMB: [6433.01, 7544.74],
    lowResource: false,
    byHandOnly: true,
  },
  {
    stem: 'Qwen3.5-4B',
    label: 'Qwen3.5 4B',
    paramsB: 4,
    thinking: true,
    vramMB: [3867.82, 4680.36],
    lowResource: false,
  },
  {
    stem: 'Qwen3-4B',
    label: 'Qwen3 4B',
    paramsB: 4,
    thinking: true,
    vramMB: [3431.59, 4327.71],
    lowResource: true,
  },
  {
    stem: 'Qwen3.5-2B',
    label: 'Qwen3.5 2B',
    paramsB: 2,
    thinking: true,
    vramMB: [2245.44, 2591.55],
    lowResource: false,
  },
  {
    stem: 'Qwen2.5-3B-Instruct',
    label: 'Qwen2.5 3B Instruct',
    paramsB: 3,
    thinking: false,
    vramMB: [2504.76, 2893.64],
    lowResource: true,
  },
  {
    stem: 'Llama-3.2-3B-Instruct',
    label: 'Llama 3.2 3B Instruct',
    paramsB: 3,
    thinking: false,
    vramMB: [2263.69, 2951.51],
    lowResource: true,
  },
  {
    stem: 'Qwen3-1.7B',
    label: 'Qwen3 1.7B',
    paramsB: 1.7,
    thinking: true,
    vramMB: [2036.66, 2635.44],
    lowResource: true,
  },
  {
    stem: 'Qwen2.5-1.5B-Instruct',
    label: 'Qwen2.5 1.5B Instruct',
    paramsB: 1.5,
    thinking: false,
    vramMB: [1629.75, 1888.97],
    lowResource: true,
  },
  {
    stem: 'Qwen3.5-0.8B',
    label: 'Qwen3.5 0.8B',
    paramsB: 0.8,
    thinking: true,
    vramMB: [1629.49, 1894.19],
    lowResource: true,
  },
  {
    stem: 'Llama-3.2-1B-Instruct',
    label: 'Llama 3.2 1B Instruct',
    paramsB: 1,
    thinking: false,
    vramMB: [879.04, 1128.82],
    lowResource: true,
  },
  {
    stem: 'Qwen3-0.6B',
    label: 'Qwen3 0.6B',
    paramsB: 0.6,
    thinking: true,
    vramMB: [1403.34, 1924.98],
    lowResource: true,
  },
  {
    stem: 'Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5 0.5B Instruct',
    paramsB: 0.5,
    thinking: false,
    vramMB: [944.62, 1060.2],
    lowResource: true,
  },
];

const TABLE: readonly ConductorModelInfo[] = FAMILIES.flatMap((family) =>
  (['q4f16_1', 'q4f32_1'] as const).map(
    (quantization, i): ConductorModelInfo => ({
      modelId: `${family.stem}-${quantization}-MLC`,
      label: family.label,
      paramsB: family.paramsB,
      quantization,
      vramMB: family.vramMB[i] ?? 0,
      lowResource: family.lowResource,
      // None of these candidates lists shader-f16 in web-llm, but a q4f16_1 kernel still needs f16 at run
      // time, so our choice asks for it regardless (see `quantizationFor`).
      requiredFeatures: [],
      thinking: family.thinking,
      byHandOnly: family.byHandOnly ?? false,
    }),
  ),
);

/** Every conductor candidate, best planner first, both quantizations. */
export function listConductorModels(): readonly ConductorModelInfo[] {
  return TABLE;
}

/**
 * Whether a model thinks aloud unless told not to: the table says so for our candidates; a custom MLC model
 * (a URL the user gave) is judged by its name, Qwen3 and Qwen3.5 being the families that do.
 */
export function thinksAloud(modelId: string): boolean {
  return conductorModelInfo(modelId)?.thinking ?? /^Qwen3(\.5)?-/.test(modelId);
}

/** The table entry for a prebuilt id, if it is one of our candidates. */
export function conductorModelInfo(modelId: string): ConductorModelInfo | undefined {
  return TABLE.find((m) => m.modelId === modelId);
}

/** The CPU engine's default: a small instruct model in GGUF, fetched by absolute URL. */
export const DEFAULT_WLLAMA_MODEL: Extract<ModelRef, { engine: 'wllama' }> = {
  engine: 'wllama',
  url: 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf',
  name: 'Qwen2.5 0.5B Instruct (GGUF q4_k_m, ~490 MB)',
};

/**
 * Qwen3.5 0.8B on the CPU engine, offered beside the default. wllama 3.13 bundles llama.cpp b12211, which
 * has the `qwen35` architecture (a hybrid: three of every four layers are gated delta-net, with a
 * recurrent state). Not the default: it downloads about as much, but costs about 1.5 times the CPU work
 * per token (its 248,320-token vocabulary alone is a 254M-parameter output layer), and llama.cpp reuses a
 * kept prompt prefix of a hybrid only from a checkpoint of its recurrent state, which no test here can
 * check (no Qwen3.5 GGUF can be fetched or made here).
 */
export const QWEN35_WLLAMA_MODEL: Extract<ModelRef, { engine: 'wllama' }> = {
  engine: 'wllama',
  url: 'https://huggingface.co/unsloth/Qwen3.5-0.8B-GGUF/resolve/main/Qwen3.5-0.8B-Q4_K_M.gguf',
  name: 'Qwen3.5 0.8B (GGUF Q4_K_M, ~500 MB)',
};

// What web-llm's runtime asks of the adapter before it loads anything (tvmjs detectGPUDevice in 0.2.86):
// it requests 1 GiB buffers and falls back to 256 MiB (maxBufferSize) / 128 MiB (binding size), and fails
// below that, or below 32 KiB of workgroup storage.
const MIN_BUFFER_SIZE = 256 * 2 ** 20;
const MIN_BINDING_SIZE = 128 * 2 ** 20;
const MIN_WORKGROUP_STORAGE = 32 * 2 ** 10;
// web-llm's own demo offers only `low_resource_required` models when the binding size is below 1 GiB.
const FULL_BINDING_SIZE = 2 ** 30;
const DEFAULT_BUDGET_MB = 4096;
// On a software renderer WebGPU is offered only for models this small (parameters, billions).
const SOFTWARE_MAX_PARAMS_B = 1;

export interface ChooseOptions {
  /** VRAM the conductor may use, in MB. Default: half of navigator.deviceMemory (1 to 8 GB), else 4 GB. */
  vramBudgetMB?: number;
}

export interface ConductorChoice {
  /** What we recommend loading. */
  model: ModelRef;
  /** Why, in one or two sentences the page can show as is. */
  reason: string;
  /** Other sensible choices, best first (smaller WebLLM models, then the CPU engine). */
  alternatives: ModelRef[];
  /**
   * The WebLLM model WebGPU would use, when the GPU can run one at all (even if we recommend the CPU): the
   * best that fits, or on a software adapter the smallest.
   */
  webgpuModel?: ConductorModelInfo;
  /**
   * Further WebLLM models the user may still pick by hand (this GPU can run them, over budget included),
   * best first. None on a software adapter: a large model there is a trap, not a choice.
   */
  byHand: ModelRef[];
  /** The adapter is a software rasterizer (SwiftShader): WebGPU works but far too slowly for an LLM. */
  softwareAdapter: boolean;
  /** The VRAM budget used, in MB. */
  budgetMB: number;
}

function webllmRef(info: ConductorModelInfo): ModelRef {
  return { engine: 'webllm', modelId: info.modelId };
}

/** web-llm's figures are in MB of 2^20 bytes. */
function sizeOfMB(mb: number): string {
  return formatBytes(mb * 2 ** 20);
}

/** q4f16_1 needs the `shader-f16` feature; q4f32_1 runs everywhere WebGPU does. */
export function quantizationFor(gpu: Pick<GpuInfo, 'shaderF16'>): Quantization {
  return gpu.shaderF16 ? 'q4f16_1' : 'q4f32_1';
}

/** Why this GPU cannot run a given model, or undefined if it can (budget aside). */
export function gpuRejects(info: ConductorModelInfo, gpu: GpuInfo): string | undefined {
  for (const feature of info.requiredFeatures) {
    if (!gpu.features.includes(feature)) return `needs the ${feature} feature`;
  }
  if (info.quantization === 'q4f16_1' && !gpu.shaderF16) return 'needs shader-f16';
  if (
    info.bufferSizeRequiredBytes !== undefined &&
    info.bufferSizeRequiredBytes > gpu.maxStorageBufferBindingSize
  ) {
    return `needs ${formatBytes(info.bufferSizeRequiredBytes)} storage-buffer bindings`;
  }
  if (!info.lowResource && gpu.maxStorageBufferBindingSize < FULL_BINDING_SIZE) {
    return `needs ${formatBytes(FULL_BINDING_SIZE)} storage-buffer bindings`;
  }
  return undefined;
}

/** Why web-llm cannot start on this adapter at all, or undefined. */
function adapterTooSmall(gpu: GpuInfo): string | undefined {
  if (gpu.maxBufferSize < MIN_BUFFER_SIZE) {
    return `its largest buffer is ${formatBytes(gpu.maxBufferSize)} and WebLLM needs at least ${formatBytes(MIN_BUFFER_SIZE)}`;
  }
  if (gpu.maxStorageBufferBindingSize < MIN_BINDING_SIZE) {
    return `its largest storage-buffer binding is ${formatBytes(gpu.maxStorageBufferBindingSize)} and WebLLM needs at least ${formatBytes(MIN_BINDING_SIZE)}`;
  }
  if (gpu.maxComputeWorkgroupStorageSize < MIN_WORKGROUP_STORAGE) {
    return `its workgroup storage is ${formatBytes(gpu.maxComputeWorkgroupStorageSize)} and WebLLM needs ${formatBytes(MIN_WORKGROUP_STORAGE)}`;
  }
  return undefined;
}

function defaultBudgetMB(caps: Capabilities): number {
  if (caps.deviceMemoryGiB === undefined) return DEFAULT_BUDGET_MB;
  // deviceMemory is system RAM (rounded, capped by the browser); integrated GPUs share it. Half is a
  // conservative share for the model, kept between 1 and 8 GB.
  return Math.min(8192, Math.max(1024, (caps.deviceMemoryGiB * 1024) / 2));
}

function cpuChoice(reason: string, budgetMB: number, extra: Partial<ConductorChoice> = {}): ConductorChoice {
  return {
    model: DEFAULT_WLLAMA_MODEL,
    reason,
    alternatives: [QWEN35_WLLAMA_MODEL],
    byHand: [],
    softwareAdapter: false,
    budgetMB,
    ...extra,
  };
}

/**
 * Picks the conductor model for these capabilities: the best candidate whose quantization the GPU supports,
 * whose buffers fit its limits and whose VRAM fits the budget; the CPU engine when WebGPU is missing, too
 * small, or a software adapter. `reason` says why, in words the page shows as is.
 */
export function chooseConductorModel(caps: Capabilities, options: ChooseOptions = {}): ConductorChoice {
  const budgetMB = options.vramBudgetMB ?? defaultBudgetMB(caps);
  const budgetText =
    options.vramBudgetMB !== undefined
      ? `your ${sizeOfMB(budgetMB)} budget`
      : caps.deviceMemoryGiB !== undefined
        ? `the ${sizeOfMB(budgetMB)} budget (half of this device's ${formatBytes(caps.deviceMemoryGiB * 2 ** 30)} memory)`
        : `the default ${sizeOfMB(budgetMB)} budget`;

  if (!caps.webgpu.available) {
    // Why there is no WebGPU is the capability panel's message, shown beside this: not repeated here.
    return cpuChoice(
      `No WebGPU here, so the CPU engine (wllama) with ${DEFAULT_WLLAMA_MODEL.name}: slower, but it runs anywhere.`,
      budgetMB,
    );
  }
  const gpu = caps.webgpu.gpu;
  const tooSmall = adapterTooSmall(gpu);
  if (tooSmall) {
    return cpuChoice(`This GPU cannot run WebLLM (${tooSmall}), so the CPU engine (wllama).`, budgetMB);
  }

  const quantization = quantizationFor(gpu);
  const quantWhy = gpu.shaderF16
    ? 'This GPU has shader-f16, so q4f16_1 models.'
    : 'No shader-f16 on this GPU, so q4f32_1 models.';
  const ofQuant = TABLE.filter((m) => m.quantization === quantization);
  const overLimits: string[] = [];
  const overBudget: string[] = [];
  const fitting: ConductorModelInfo[] = [];
  for (const info of ofQuant) {
    if (info.byHandOnly) continue;
    const rejected = gpuRejects(info, gpu);
    if (rejected) overLimits.push(`${info.label} ${rejected}`);
    else if (info.vramMB > budgetMB) overBudget.push(`${info.label} needs ${sizeOfMB(info.vramMB)}`);
    else fitting.push(info);
  }
  const why: string[] = [];
  if (overLimits.length > 0) why.push(`${overLimits.join(', ')}, beyond this GPU's limits`);
  if (overBudget.length > 0) why.push(`${overBudget.join(', ')}, over ${budgetText}`);
  const best = fitting[0];
  if (!best) {
    return cpuChoice(
      `${quantWhy} No candidate fits (${why.join('; ')}), so the CPU engine (wllama).`,
      budgetMB,
    );
  }
  const chose = `${quantWhy}${why.length > 0 ? ` ${why.join('; ')}; chose` : ' Chose'} ${best.label} (${best.modelId}, ${sizeOfMB(best.vramMB)}).`;
  const smaller = fitting.slice(1).map(webllmRef);
  const offered = new Set(fitting.map((m) => m.modelId));
  const byHand = ofQuant.filter((m) => !offered.has(m.modelId) && !gpuRejects(m, gpu)).map(webllmRef);

  if (gpu.isFallbackAdapter || /swiftshader/i.test(`${gpu.vendor} ${gpu.architecture} ${gpu.description}`)) {
    // A software renderer manages ~0.1 GFLOP/s: only the smallest models could answer at all, fastest first.
    const small = fitting
      .filter((m) => m.paramsB <= SOFTWARE_MAX_PARAMS_B)
      .sort((a, b) => a.paramsB - b.paramsB);
    const cpu =
      'This WebGPU adapter is a software renderer (SwiftShader, no real GPU): far too slow for an LLM, ' +
      'so the CPU engine (wllama) is recommended.';
    const smallest = small[0];
    if (!smallest)
      return cpuChoice(`${cpu} No WebGPU model is small enough to offer.`, budgetMB, {
        softwareAdapter: true,
      });
    return {
      model: DEFAULT_WLLAMA_MODEL,
      reason:
        `${cpu} If you still want to try WebGPU, only models of ${SOFTWARE_MAX_PARAMS_B}B parameters or fewer ` +
        `are offered. ${quantWhy} ${small.map((m) => `${m.label} (${sizeOfMB(m.vramMB)})`).join(', ')}.`,
      alternatives: [...small.map(webllmRef), QWEN35_WLLAMA_MODEL],
      byHand: [],
      webgpuModel: smallest,
      softwareAdapter: true,
      budgetMB,
    };
  }
  return {
    model: webllmRef(best),
    reason: chose,
    alternatives: [...smaller, QWEN35_WLLAMA_MODEL, DEFAULT_WLLAMA_MODEL],
    byHand,
    webgpuModel: best,
    softwareAdapter: false,
    budgetMB,
  };
}

/**
 * How the model picker names a model: the family, quantization and GPU memory of a WebLLM candidate (so a
 * 4 GB choice looks like one), the file name of a GGUF, and which engine runs it.
 */
export function modelOptionLabel(model: ModelRef): string {
  if (model.engine === 'wllama') return `${model.name ?? model.url.split('/').pop() ?? model.url} (CPU)`;
  if (model.engine === 'local-server') return `${model.model} on ${model.baseURL} (local server)`;
  if (model.engine === 'prompt-api') return `${BROWSER_MODEL_NAME}, run by Chrome`;
  const info = conductorModelInfo(model.modelId);
  if (!info) return `${model.modelId} (WebGPU)`;
  return `${info.label} · ${info.quantization} · ${sizeOfMB(info.vramMB)} GPU memory (WebGPU)`;
}
