// Settings' "Show the plan and steps open by default", as the app stores it (src/app/prefs.ts, viewPrefs):
// what the specs that look into a run's machinery run with (playwright.config.ts).
export const STEPS_OPEN = { name: 'baton.viewPrefs', value: JSON.stringify({ stepsOpen: true }) };

/** A browser context as a user who never changed that setting has it: answers first. */
export const ANSWER_FIRST = { storageState: { cookies: [], origins: [] } };
