import { test as base } from '@playwright/test';
import { openStepsByDefault } from './steps-open.ts';

// The `test` the app's specs import: Playwright's own, whose context has Settings' "Show the plan and steps
// open by default" on (the specs written before answers came first look into the plan, graph and step
// cards of every run) unless the file says `test.use(ANSWER_FIRST)` (steps-open.ts).
export * from '@playwright/test';

export const test = base.extend<{ stepsOpen: boolean }>({
  stepsOpen: [true, { option: true }],
  context: async ({ context, stepsOpen }, use) => {
    if (stepsOpen) await openStepsByDefault(context);
    await use(context);
  },
});
