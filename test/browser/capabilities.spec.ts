import { baseChromiumArgs, findChromium } from '../chromium.ts';
import { chromium, expect, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

test('shows the real SwiftShader adapter this machine has', async ({ page }) => {
  await page.goto('/');
  const panel = page.getByTestId('capabilities');
  await expect(panel).toHaveAttribute('data-ready', 'true');
  const caps = await page.evaluate(
    () => (globalThis as { __batonCapabilities?: unknown }).__batonCapabilities,
  );
  expect(caps).toMatchObject({
    webgpu: { available: true, gpu: { isFallbackAdapter: true, shaderF16: false } },
    crossOriginIsolated: true,
  });
  type Gpu = {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    maxBufferSize: number;
  };
  const gpu = (caps as { webgpu: { gpu: Gpu } }).webgpu.gpu;
  expect([gpu.vendor, gpu.architecture, gpu.device, gpu.description].join(' ').toLowerCase()).toContain(
    'swiftshader',
  );
  expect(gpu.maxBufferSize).toBeGreaterThan(0);
  await expect(panel).toContainText('shader-f16');
  await expect(panel.locator('dd').nth(1)).toContainText(/swiftshader/i);
  await expect(page.getByTestId('webgpu-unavailable')).toHaveCount(0);
});

test('says clearly that WebGPU is unavailable, and why, without --enable-unsafe-webgpu', async ({
  baseURL,
}) => {
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const page = await browser.newPage();
    await openStepsByDefault(page.context());
    await page.goto(baseURL!);
    const alert = page.getByTestId('webgpu-unavailable');
    await expect(alert).toBeVisible();
    await expect(alert).toHaveAttribute('role', 'alert');
    await expect(alert).toContainText('WebGPU is unavailable');
    await expect(alert).toContainText(/no GPU adapter|enable-unsafe-webgpu/);
    await expect(page.getByTestId('capabilities')).toContainText('CPU engine');
  } finally {
    await browser.close();
  }
});
