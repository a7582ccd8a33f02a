import { h, render } from 'preact';
import { createAppState, pageServices } from './app/app-state.ts';
import { restoreConductor } from './app/conductor.ts';
import { loadPool } from './app/pool.ts';
import { registerServiceWorker } from './app/pwa.ts';
import { isOnboarded, startCapabilities } from './app/state.ts';
import { App } from './ui/App.tsx';
import { AppStateContext } from './ui/app-context.ts';
import './ui/styles.css';

const app = createAppState(pageServices());
app.theme.startTheme();
// First visit opens on the start screen (device check, model, pool); later visits on Ask.
app.router.startRouter(() => (isOnboarded() ? { name: 'ask' } : { name: 'start' }));
render(h(AppStateContext.Provider, { value: app }, h(App, {})), document.getElementById('app')!);

void startCapabilities();
void app.storage.refreshStorage();
void loadPool();
// Only the runs a reload cut off (for the resume banner): History reads its own page when it is opened.
void app.runs.refreshUnfinished().catch((error: unknown) => console.warn('history unavailable', error));
void restoreConductor(app.storage);
registerServiceWorker();
