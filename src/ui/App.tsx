import { useEffect, useRef } from 'preact/hooks';
import { modelLabel } from '../app/conductor.ts';
import type { Route } from '../app/router.ts';
import { AskScreen } from './AskScreen.tsx';
import { useAppState } from './app-context.ts';
import { Logo } from './Logo.tsx';
import { lazyComponent } from './lazy.tsx';
import { ScreenBoundary } from './ScreenBoundary.tsx';
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

// Only Start and Ask are first-load JS: the other screens are loaded when first opened (P4).
const LazyBench = lazyComponent('the bench', () =>
  import('./bench/BenchRoute.tsx').then((m) => m.BenchRoute),
);
const HistoryScreen = lazyComponent('History', () =>
  import('./HistoryScreen.tsx').then((m) => m.HistoryScreen),
);
const SettingsScreen = lazyComponent('Settings', () =>
  import('./SettingsScreen.tsx').then((m) => m.SettingsScreen),
);
const LedgerScreen = lazyComponent('the ledger', () =>
  import('./LedgerScreen.tsx').then((m) => m.LedgerScreen),
);

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
