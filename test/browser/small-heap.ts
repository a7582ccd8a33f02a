import { chromium, test } from '@playwright/test';
import { findChromium, smallHeapChromiumArgs } from '../chromium.ts';
import { openStepsByDefault } from './steps-open.ts';

/**
 * A test whose `page` is in a Chromium of its own with a 256 MB V8 heap, for code answers that allocate
 * until the heap limit kills their runner: a lower limit reaches the same crash sooner (a user's machine
 * has its own limit). The browser is the test's, not the worker's, so the file's other tests run in the
 * suite's shared browser and the file is scheduled as any other.
 */
export const smallHeapTest = test.extend({
  page: async ({ baseURL }, use) => {
    const browser = await chromium.launch({ executablePath: findChromium(), args: smallHeapChromiumArgs });
    try {
      const context = await browser.newContext({ ...(baseURL ? { baseURL } : {}) });
      await openStepsByDefault(context);
      await use(await context.newPage());
    } finally {
      await browser.close();
    }
  },
});
