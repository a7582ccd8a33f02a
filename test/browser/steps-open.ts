import type { BrowserContext } from '@playwright/test';

// Settings' "Show the plan and steps open by default", as the app stores it (src/app/prefs.ts, viewPrefs):
// what the specs that look into a run's machinery run with (app-test.ts gives every test's context it).
export const STEPS_OPEN = { name: 'baton.viewPrefs', value: JSON.stringify({ stepsOpen: true }) };

/** A browser context as a user who never changed that setting has it: answers first. */
export const ANSWER_FIRST = { stepsOpen: false };

/**
 * Gives `context` the setting before the app reads it, as if stored by an earlier visit. A script run at
 * the start of each document rather than Playwright's `storageState`: that opens and navigates an extra
 * page in every new context to write it, about 0.6 s a test on this machine (more under load). Written
 * only when the key is absent, so a reload keeps what the app or the test changed it to since.
 */
export async function openStepsByDefault(context: BrowserContext): Promise<void> {
  await context.addInitScript(({ name, value }) => {
    try {
      if (localStorage.getItem(name) === null) localStorage.setItem(name, value);
    } catch {
      // A document without storage of its own (about:blank, an opaque origin): nothing to set.
    }
  }, STEPS_OPEN);
}
