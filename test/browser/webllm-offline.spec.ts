import { expect, test } from './app-test.ts';

/**
 * The WebLLM engine on this machine's real SwiftShader adapter, in a real module worker: the model choice
 * is a q4f32_1 model (no shader-f16) and the CPU engine is recommended; loading a model with no network
 * fails with a clear, typed error, and the page stays usable and offers the CPU engine.
 */

interface HarnessState {
  caps?: { webgpu: { available: boolean; gpu?: { shaderF16: boolean; isFallbackAdapter: boolean } } };
  choice?: {
    model: { engine: string };
    reason: string;
    softwareAdapter: boolean;
    webgpuModel?: { modelId: string; quantization: string };
    alternatives: Array<{ engine: string; modelId?: string }>;
  };
  load?: {
    ok: boolean;
    failure?: { name: string; message: string; suggestion?: string; suggestions: string[] };
    ms?: number;
  };
}

function harness(page: import('@playwright/test').Page): Promise<HarnessState> {
  return page.evaluate(() => {
    const s = (globalThis as { __webllmHarness?: HarnessState }).__webllmHarness;
    return JSON.parse(JSON.stringify({ caps: s?.caps, choice: s?.choice, load: s?.load })) as HarnessState;
  });
}

test('SwiftShader: picks a q4f32_1 model for WebGPU and recommends the CPU engine', async ({ page }) => {
  await page.goto('/test/pages/webllm.html');
  const choice = page.getByTestId('choice');
  await expect(choice).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
  const state = await harness(page);
  // The probe ran inside the worker and saw the software adapter without shader-f16.
  expect(state.caps?.webgpu).toMatchObject({
    available: true,
    gpu: { shaderF16: false, isFallbackAdapter: true },
  });
  expect(state.choice?.webgpuModel?.quantization).toBe('q4f32_1');
  expect(state.choice?.webgpuModel?.modelId).toMatch(/-q4f32_1-MLC$/);
  expect(state.choice?.alternatives[0]).toEqual({
    engine: 'webllm',
    modelId: state.choice?.webgpuModel?.modelId,
  });
  expect(state.choice?.softwareAdapter).toBe(true);
  expect(state.choice?.model.engine).toBe('wllama');
  await expect(choice).toContainText('software renderer (SwiftShader');
  await expect(choice).toContainText('No shader-f16 on this GPU, so q4f32_1');
  await expect(choice).toHaveAttribute('data-webgpu-model', /-q4f32_1-MLC$/);
  // web-llm's real cache lookup (Cache API backend) ran in the worker: nothing is cached on a fresh profile.
  await expect(choice).toHaveAttribute('data-cached', 'false');
});

test('offline: loading a WebLLM model fails clearly, the page stays usable and offers the CPU engine', async ({
  page,
  context,
}) => {
  await page.goto('/test/pages/webllm.html');
  await expect(page.getByTestId('choice')).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
  // No network for the model host (this machine has none anyway; this makes it explicit and fast).
  await context.setOffline(true);
  await page.getByTestId('load-webgpu').click();
  const alert = page.getByTestId('load-error');
  await expect(alert).toBeVisible({ timeout: 45_000 });
  await expect(alert).toHaveAttribute('role', 'alert');
  await expect(alert).toHaveAttribute('data-name', 'ModelFetchError');
  await expect(alert).toHaveAttribute('data-suggestion', 'cpu');
  await expect(alert).toContainText(/Could not download .*-q4f32_1-MLC/);
  await expect(alert).toContainText('Failed to fetch');
  await expect(alert).toContainText('CPU engine');

  const state = await harness(page);
  expect(state.load?.ok).toBe(false);
  expect(state.load?.failure).toMatchObject({ name: 'ModelFetchError', suggestion: 'cpu' });
  test.info().annotations.push({
    type: 'offline load rejected after (ms)',
    description: String(Math.round(state.load?.ms ?? -1)),
  });

  // The worker still answers, and the page still works: take the CPU offer.
  expect(
    await page.evaluate(
      async () =>
        (
          await (
            globalThis as { __webllmHarness?: { ping(): Promise<{ value: unknown }> } }
          ).__webllmHarness?.ping()
        )?.value,
    ),
  ).toBe('pong');
  await page.getByTestId('use-cpu').click();
  await expect(page.getByTestId('engine-selected')).toContainText(
    'CPU engine selected: Qwen2.5 0.5B Instruct',
  );
  await expect(page.getByTestId('load-error')).toHaveCount(0);
  // Loading again gives the same clear error rather than a stuck or broken engine.
  await page.getByTestId('load-webgpu').click();
  await expect(page.getByTestId('load-error')).toHaveAttribute('data-name', 'ModelFetchError', {
    timeout: 45_000,
  });
});

test('offline before web-llm was ever fetched: still a clear error offering the CPU engine', async ({
  page,
  context,
}) => {
  await page.goto('/test/pages/webllm.html?cacheCheck=0');
  await expect(page.getByTestId('choice')).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
  await context.setOffline(true);
  await page.getByTestId('load-webgpu').click();
  const alert = page.getByTestId('load-error');
  await expect(alert).toHaveAttribute('data-name', 'ModelFetchError', { timeout: 45_000 });
  await expect(alert).toHaveAttribute('data-suggestion', 'cpu');
  await expect(alert).toContainText("Could not load the WebLLM engine's code");
  await page.getByTestId('use-cpu').click();
  await expect(page.getByTestId('engine-selected')).toContainText('CPU engine selected');
});
