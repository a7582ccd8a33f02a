import type { Capabilities } from '../shared/capabilities.ts';
import { formatBytes } from '../shared/format-bytes.ts';

/** Label/value rows for the capability panel, in the order a person reads them. */
export function describeCapabilities(caps: Capabilities): Array<[label: string, value: string]> {
  const rows: Array<[string, string]> = [];
  if (caps.webgpu.available) {
    const gpu = caps.webgpu.gpu;
    rows.push(['WebGPU', 'available']);
    rows.push([
      'Adapter',
      [gpu.vendor, gpu.architecture, gpu.description].filter(Boolean).join(' · ') || 'unknown',
    ]);
    rows.push(['Fallback (software) adapter', gpu.isFallbackAdapter ? 'yes' : 'no']);
    rows.push(['shader-f16', gpu.shaderF16 ? 'yes' : 'no']);
    rows.push(['maxStorageBufferBindingSize', formatBytes(gpu.maxStorageBufferBindingSize)]);
    rows.push(['maxBufferSize', formatBytes(gpu.maxBufferSize)]);
  } else {
    rows.push(['WebGPU', 'unavailable']);
  }
  rows.push(['Cross-origin isolated (CPU threads)', caps.crossOriginIsolated ? 'yes' : 'no']);
  rows.push(['CPU threads', String(caps.hardwareConcurrency)]);
  if (caps.deviceMemoryGiB !== undefined)
    rows.push(['Device memory', `${formatBytes(caps.deviceMemoryGiB * 2 ** 30)} or more`]);
  return rows;
}
