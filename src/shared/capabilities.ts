/**
 * What this browser can do for on-device inference. Runs on the page and inside workers (no DOM use).
 */
export interface GpuInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
  shaderF16: boolean;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxComputeWorkgroupStorageSize: number;
  features: string[];
}

export type WebGpuStatus =
  | { available: true; gpu: GpuInfo }
  | { available: false; reason: 'no-api' | 'no-adapter' | 'error'; message: string };

export interface Capabilities {
  webgpu: WebGpuStatus;
  /** SharedArrayBuffer works only when the page is cross-origin isolated: wllama needs it for threads. */
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** navigator.deviceMemory (GiB, rounded by the browser) where the browser tells it. */
  deviceMemoryGiB?: number;
}

// `requestAdapter()` on a blocked GPU can take seconds: give it a bound so the page never hangs on it.
const ADAPTER_TIMEOUT_MS = 10_000;

export async function probeWebGpu(gpu: GPU | undefined = globalThis.navigator?.gpu): Promise<WebGpuStatus> {
  if (!gpu) {
    return {
      available: false,
      reason: 'no-api',
      message:
        'This browser has no WebGPU (navigator.gpu is missing). Use a recent Chrome, Edge or Safari 26+, ' +
        'or the CPU engine, which is slower.',
    };
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await Promise.race([
      gpu.requestAdapter({ powerPreference: 'high-performance' }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('requestAdapter() did not answer in 10 s')), ADAPTER_TIMEOUT_MS),
      ),
    ]);
  } catch (error) {
    return { available: false, reason: 'error', message: `WebGPU failed: ${(error as Error).message}` };
  }
  if (!adapter) {
    return {
      available: false,
      reason: 'no-adapter',
      message:
        'WebGPU is present but the browser gave no GPU adapter: the GPU may be blocklisted or WebGPU disabled ' +
        '(in Chrome on Linux, enable chrome://flags/#enable-unsafe-webgpu). The CPU engine still works.',
    };
  }
  const info = adapter.info;
  const features = [...adapter.features].map(String).sort();
  return {
    available: true,
    gpu: {
      vendor: info.vendor,
      architecture: info.architecture,
      device: info.device,
      description: info.description,
      // Chrome moved isFallbackAdapter from the adapter to adapter.info; read both.
      isFallbackAdapter: Boolean(
        (info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter ??
          (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter,
      ),
      shaderF16: adapter.features.has('shader-f16'),
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
      maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
      features,
    },
  };
}

export async function probeCapabilities(): Promise<Capabilities> {
  const nav = globalThis.navigator as (typeof globalThis.navigator & { deviceMemory?: number }) | undefined;
  const caps: Capabilities = {
    webgpu: await probeWebGpu(),
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: nav?.hardwareConcurrency ?? 1,
  };
  if (typeof nav?.deviceMemory === 'number') caps.deviceMemoryGiB = nav.deviceMemory;
  return caps;
}
