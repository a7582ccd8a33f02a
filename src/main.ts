import { h, render } from 'preact';
import { createAppState, pageServices } from './app/app-state.ts';
import { registerServiceWorker } from './app/pwa.ts';
import { App } from './ui/App.tsx';
import { AppStateContext } from './ui/app-context.ts';
import './ui/styles.css';

const app = createAppState(pageServices());
app.theme.startTheme();
// First visit opens on the start screen (device check, model, pool); later visits on Ask.
app.router.startRouter(() => (app.prefs.isOnboarded() ? { name: 'ask' } : { name: 'start' }));
render(h(AppStateContext.Provider, { value: app }, h(App, {})), document.getElementById('app')!);

void app.device.startCapabilities();
void app.storage.refreshStorage();
void app.pool.loadPool();
// Only the runs a reload cut off (for the resume banner): History reads its own page when it is opened.
void app.runs.refreshUnfinished().catch((error: unknown) => console.warn('history unavailable', error));
// Asking Chrome whether it has a model of its own costs nothing and downloads nothing.
void app.conductor.probeBrowserModel();
void app.conductor.restore(app.storage);
// A key or pointer press is a use of the page: the vault locks after the idle time chosen in Settings.
app.startLockWhenIdle((used) => {
  const events = ['keydown', 'pointerdown'] as const;
  for (const event of events) document.addEventListener(event, used, { capture: true, passive: true });
  return () => {
    for (const event of events) document.removeEventListener(event, used, { capture: true });
  };
});
// Scheduled backups, when the user set a schedule (Settings → Backups); nothing when there is none.
void app.backups.load().catch((error: unknown) => console.warn('backup settings unavailable', error));
registerServiceWorker();
