import type { ComponentType } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { modelLabel } from '../app/conductor.ts';
import type { Route } from '../app/router.ts';
import { AskScreen } from './AskScreen.tsx';
import { useAppState } from './app-context.ts';
import { HistoryScreen } from './HistoryScreen.tsx';
import { LedgerScreen } from './LedgerScreen.tsx';
import { Logo } from './Logo.tsx';
import { ScreenBoundary } from './ScreenBoundary.tsx';
import { SettingsScreen } from './SettingsScreen.tsx';
import { Shortcuts } from './Shortcuts.tsx';
import { StartScreen } from './StartScreen.tsx';
import { UnlockPrompt } from './UnlockPrompt.tsx';

const NAV: Array<{ name: Route['name']; label: string }> = [
  { name: 'start', label: 'Start' },
  { name: 'ask', label: 'Ask' },
  { name: 'history', label: 'History' },
  { name: 'bench', label: 'Bench' },
  { name: 'settings', label: 'Settings' },
];

function ConductorStatusLine() {
  const state = useAppState().conductor.state.value;
  let text: string;
  switch (state.status) {
    case 'none':
      text = 'Conductor: no model loaded';
      break;
    case 'loading':
      text = `Conductor: loading ${state.label ?? ''}${state.progress ? ` (${state.progress.percent.toFixed(0)}%)` : ''}`;
      break;
    case 'ready':
      text = `Conductor: ${state.label ?? (state.model ? modelLabel(state.model) : 'ready')}`;
      break;
    case 'error':
      // The cause and what to do are on Start, beside the model: the header only says that it failed.
      text = `Conductor: could not load ${state.label ?? 'the model'}`;
      break;
  }
  return (
    <p class="status-line" data-testid="conductor-status" data-state={state.status}>
      <span class="status-dot" data-state={state.status} aria-hidden="true" />
      <span class="status-text">{text}</span>
    </p>
  );
}

/** The bench (charts, strategies, scoring) is loaded only when someone opens it: it is not first-load JS. */
function LazyBench() {
  const [screen, setScreen] = useState<{ Bench: ComponentType } | { error: string } | undefined>();
  useEffect(() => {
    import('./bench/BenchRoute.tsx').then(
      (module) => setScreen({ Bench: module.BenchRoute }),
      (error: unknown) => setScreen({ error: `The bench could not be loaded: ${(error as Error).message}` }),
    );
  }, []);
  if (!screen) return <p aria-busy="true">Loading the bench…</p>;
  if ('error' in screen) return <p role="alert">{screen.error}</p>;
  return <screen.Bench />;
}

function Screen({ current }: { current: Route }) {
  switch (current.name) {
    case 'start':
      return <StartScreen />;
    case 'ask':
      return <AskScreen />;
    case 'run':
      return <AskScreen runId={current.id} />;
    case 'history':
      return <HistoryScreen />;
    case 'settings':
      return <SettingsScreen />;
    case 'ledger':
      return <LedgerScreen />;
    case 'bench':
      return <LazyBench />;
  }
}

export function App() {
  const current = useAppState().router.route.value;
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Move focus to the new screen on navigation (not on first load), so keyboard and screen-reader users
  // land at its start; unless a field of it has it already (a shortcut went there: Ctrl+K).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (mainRef.current?.contains(document.activeElement) && document.activeElement !== mainRef.current)
      return;
    mainRef.current?.focus();
  }, [current.name, current.name === 'run' ? current.id : '']);
  // A stored run is opened from History, the ledger from Settings: their nav item stays marked.
  const active = current.name === 'run' ? 'history' : current.name === 'ledger' ? 'settings' : current.name;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="app-header">
        <p class="brand">
          <Logo />
          Baton
        </p>
        <nav class="app-nav" aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.name}>
                <a href={`#/${item.name}`} aria-current={active === item.name ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="header-end">
          <ConductorStatusLine />
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>
        <ScreenBoundary key={current.name === 'run' ? `run/${current.id}` : current.name} name={current.name}>
          <Screen current={current} />
        </ScreenBoundary>
      </main>
      <UnlockPrompt />
      <Shortcuts />
    </>
  );
}
