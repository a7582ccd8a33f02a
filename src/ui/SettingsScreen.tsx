import { useEffect, useState } from 'preact/hooks';
import { historyBudgetText } from '../app/history-budget.ts';
import { parseSpendLimit } from '../app/prefs.ts';
import { routeHash } from '../app/router.ts';
import type { ThemeChoice } from '../app/theme.ts';
import { WHOLE_FILE_CHOICES } from '../attachments/whole-or-passages.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { useAppState } from './app-context.ts';
import { BackupsPanel } from './BackupsPanel.tsx';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { ConductorSetup } from './ConductorSetup.tsx';
import { Field } from './Field.tsx';
import { LearnedStatePanel } from './LearnedStatePanel.tsx';
import { PoolPanel } from './PoolPanel.tsx';
import { SavedPromptsPanel } from './SavedPromptsPanel.tsx';
import { ToolsPanel } from './ToolsPanel.tsx';

import { VaultPanel } from './VaultPanel.tsx';

function ThemePanel() {
  const options: Array<[ThemeChoice, string]> = [
    ['system', 'System'],
    ['light', 'Light'],
    ['dark', 'Dark'],
  ];
  const { theme } = useAppState().theme;
  return (
    <section class="card" aria-labelledby="theme-title">
      <h2 id="theme-title">Appearance</h2>
      <fieldset class="segmented" style={{ padding: 0 }}>
        <legend class="visually-hidden">Theme</legend>
        {options.map(([value, label]) => (
          <label key={value}>
            <input
              type="radio"
              name="theme"
              value={value}
              checked={theme.value === value}
              onChange={() => {
                theme.value = value;
              }}
              data-testid={`theme-${value}`}
            />
            {label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}

function PlanningPanel() {
  const { planPrefs, runPrefs } = useAppState().prefs;
  const prefs = planPrefs.value;
  return (
    <section class="card" aria-labelledby="planning-title" data-testid="planning-panel">
      <h2 id="planning-title">Planning</h2>
      <div class="field">
        <label for="max-steps">Most steps in a plan</label>
        <select
          id="max-steps"
          value={String(prefs.maxSteps)}
          onChange={(e) => {
            planPrefs.value = { ...prefs, maxSteps: Number(e.currentTarget.value) };
          }}
        >
          {[1, 2, 3, 4, 5].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="max-depth">Self-check depth (the conductor reviewing and correcting its workflow)</label>
        <select
          id="max-depth"
          value={String(prefs.maxDepth)}
          onChange={(e) => {
            planPrefs.value = { ...prefs, maxDepth: Number(e.currentTarget.value) };
          }}
        >
          <option value="0">0 (off)</option>
          <option value="1">1</option>
          <option value="2">2</option>
        </select>
      </div>
      <div class="field">
        <label>
          <input
            type="checkbox"
            checked={runPrefs.value.failover}
            data-testid="failover-toggle"
            aria-describedby="failover-hint"
            onChange={(e) => {
              runPrefs.value = { ...runPrefs.value, failover: e.currentTarget.checked };
            }}
          />{' '}
          Failover: hand a step to another worker when its own stays unavailable
        </label>
        <p id="failover-hint" class="muted small">
          After its retries fail (the provider is down or overloaded, unreachable, or refuses the key), a step
          runs again on the most similar other worker of the pool that has a key, which then receives that
          step's question and context. A step pinned in the plan review, or given to the on-device model,
          never moves.
        </p>
      </div>
      <HistoryBudgetField />
      <WholeFileField />
      <StepsOpenField />
    </section>
  );
}

/** Whether each answer's machinery (plan, graph, timeline, steps, costs) is open without a click. */
function StepsOpenField() {
  const { viewPrefs } = useAppState().prefs;
  return (
    <div class="field">
      <label>
        <input
          type="checkbox"
          checked={viewPrefs.value.stepsOpen}
          data-testid="steps-open-toggle"
          onChange={(e) => {
            viewPrefs.value = { ...viewPrefs.value, stepsOpen: e.currentTarget.checked };
          }}
        />{' '}
        Show the plan and steps open by default
      </label>
    </div>
  );
}

/** How much of a thread's earlier turns each step of a follow-up is sent (src/app/history-budget.ts). */
function HistoryBudgetField() {
  const { historyPrefs } = useAppState().prefs;
  const tokens = historyPrefs.value.tokens;
  return (
    <div class="field">
      <label for="history-budget">Earlier turns a follow-up's workers get</label>
      <select
        id="history-budget"
        data-testid="history-budget"
        aria-describedby="history-budget-hint"
        value={tokens === null ? 'auto' : String(tokens)}
        onChange={(e) => {
          const value = e.currentTarget.value;
          historyPrefs.value = { tokens: value === 'auto' ? null : Number(value) };
        }}
      >
        <option value="auto">Automatic</option>
        {[0, 1_000, 4_000, 16_000, 64_000].map((n) => (
          <option key={n} value={String(n)}>
            {n === 0 ? 'None' : `${n.toLocaleString('en-US')} tokens per step`}
          </option>
        ))}
      </select>
      <p id="history-budget-hint" class="muted small">
        {historyBudgetText(historyPrefs.value)} The newest turns are kept first; a step says when older ones
        were left out. Each step pays for them as input tokens.
      </p>
    </div>
  );
}

/** Past what size a file the plan did not choose for goes as passages (src/attachments/whole-or-passages.ts). */
function WholeFileField() {
  const { wholeFileTokens } = useAppState().prefs;
  return (
    <div class="field">
      <label for="whole-file-tokens">Send a file whole up to</label>
      <select
        id="whole-file-tokens"
        data-testid="whole-file-tokens"
        aria-describedby="whole-file-tokens-hint"
        value={String(wholeFileTokens.value)}
        onChange={(e) => {
          const value = e.currentTarget.value;
          wholeFileTokens.value = value === 'null' ? null : Number(value);
        }}
      >
        {WHOLE_FILE_CHOICES.map((n) => (
          <option key={String(n)} value={String(n)}>
            {n === null ? 'Any size (never passages)' : `about ${n.toLocaleString('en-US')} tokens`}
          </option>
        ))}
      </select>
      <p id="whole-file-tokens-hint" class="muted small">
        Past it, a step the plan did not choose for gets only the passages of the file it needs, chosen on
        this device; the plan review shows them. A plan or a review that says "whole" sends the whole file.
      </p>
    </div>
  );
}

/** The spend limit per run: typed as dollars, stored once it reads as an amount (or empty: no limit). */
function SpendingPanel() {
  const { spendPrefs } = useAppState().prefs;
  const stored = spendPrefs.value.runLimitUsd;
  const [text, setText] = useState(stored === null ? '' : stored.toFixed(2));
  const [error, setError] = useState<string | undefined>();
  return (
    <section class="card" aria-labelledby="spending-title" data-testid="spending-panel">
      <h2 id="spending-title">Spending</h2>
      <Field
        id="run-spend-limit"
        label="Spend limit per run ($)"
        inputMode="decimal"
        value={text}
        onValue={(value) => {
          setText(value);
          const parsed = parseSpendLimit(value);
          setError(parsed.ok ? undefined : parsed.error);
          if (parsed.ok) spendPrefs.value = { runLimitUsd: parsed.limit };
        }}
        error={error}
        hint={
          stored === null
            ? 'No limit: runs are never stopped for what they spend.'
            : 'A plan estimated over it waits for your OK before it runs; a run whose spend passes it stops, keeping the steps done. Empty: no limit.'
        }
      />
    </section>
  );
}

function ModelCachePanel() {
  const app = useAppState();
  const { unload: unloadConductor } = app.conductor;
  const { modelCache } = app;
  const state = app.conductor.state.value;
  const { storageStatus, refreshStorage, requestPersistence } = app.storage;
  const storage = storageStatus.value;
  const [message, setMessage] = useState<string | undefined>();
  const model = state.model;
  // A local server keeps its model itself: this browser stores nothing of it.
  const inServer = model?.engine === 'local-server';
  const cache = modelCache.of(model);
  useEffect(() => {
    void refreshStorage();
    // A local server's "cache" is the server answering: not worth a request each time Settings opens.
    if (!model || state.status !== 'ready' || inServer) return;
    void modelCache.refresh(model);
  }, [model, state.status]);
  return (
    <section class="card" aria-labelledby="cache-title" data-testid="model-cache">
      <h2 id="cache-title">Model storage</h2>
      <dl class="kv">
        <dt>Loaded model</dt>
        <dd>{state.status === 'ready' ? state.label : 'none'}</dd>
        <dt>In the cache</dt>
        <dd>
          {inServer
            ? 'nothing: the model stays in the local server'
            : cache === undefined
              ? '—'
              : cache.cached
                ? `yes${cache.bytes ? ` (${formatBytes(cache.bytes)})` : ''}`
                : 'no'}
        </dd>
        <dt>Storage used</dt>
        <dd>
          {storage.usageBytes !== undefined ? formatBytes(storage.usageBytes) : '—'}
          {storage.quotaBytes !== undefined ? ` of ${formatBytes(storage.quotaBytes)}` : ''}
          {storage.attachmentBytes ? (
            <span data-testid="attachment-bytes">
              {`; attached files: ${formatBytes(storage.attachmentBytes)}`}
            </span>
          ) : null}
        </dd>
        <dt>Persistent storage</dt>
        <dd data-testid="persisted">
          {storage.persisted === undefined ? 'unknown' : storage.persisted ? 'yes' : 'no'}
        </dd>
      </dl>
      {message && (
        <p class="alert" data-kind="ok" role="status">
          {message}
        </p>
      )}
      <div class="row">
        {!storage.persisted && (
          <button type="button" onClick={() => void requestPersistence()}>
            Ask for persistent storage
          </button>
        )}
        {state.status === 'ready' && (
          <button type="button" onClick={() => void unloadConductor()}>
            Unload
          </button>
        )}
        {model && !inServer && (
          <button
            type="button"
            class="danger"
            onClick={async () => {
              const name = state.label ?? 'the conductor model';
              const size = cache?.bytes ? ` (${formatBytes(cache.bytes)})` : '';
              // It cannot be undone: using the model again means downloading it again.
              if (
                !confirm(
                  `Delete ${name}${size} from this browser's cache? You will have to download it again to use it.`,
                )
              )
                return;
              setMessage(await modelCache.remove(model, state.status === 'ready'));
            }}
          >
            Delete the model from the cache
          </button>
        )}
      </div>
    </section>
  );
}

/** The cards of Settings in page order, each with its heading's id and its part of the URL. */
const SECTIONS: Array<{ slug: string; heading: string; label: string }> = [
  { slug: 'pool', heading: 'pool-panel-title', label: 'Pool' },
  { slug: 'keys', heading: 'keys-title', label: 'API keys' },
  { slug: 'tools', heading: 'tools-title', label: 'Tools' },
  { slug: 'conductor', heading: 'conductor-title', label: 'Conductor model' },
  { slug: 'storage', heading: 'cache-title', label: 'Model storage' },
  { slug: 'planning', heading: 'planning-title', label: 'Planning' },
  { slug: 'spending', heading: 'spending-title', label: 'Spending' },
  { slug: 'prompts', heading: 'saved-prompts-title', label: 'Saved prompts' },
  { slug: 'learned', heading: 'learned-title', label: 'What Baton learned' },
  { slug: 'backups', heading: 'backups-title', label: 'Backups' },
  { slug: 'appearance', heading: 'theme-title', label: 'Appearance' },
  { slug: 'ledger', heading: 'ledger-link-title', label: 'Egress ledger' },
  { slug: 'device', heading: 'caps-title', label: 'This device' },
];

/** Links to each card of the page (`#/settings/<section>`: the app routes on the hash, so no `#id`). */
function SectionList() {
  return (
    <nav aria-label="Settings sections" class="section-list" data-testid="settings-sections">
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.slug}>
            <a href={routeHash({ name: 'settings', section: section.slug })}>{section.label}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Moves focus (and so the page) to the heading of the section the URL names, each time it names one. */
function useSectionFocus(section: string | undefined): void {
  useEffect(() => {
    const id = SECTIONS.find((s) => s.slug === section)?.heading;
    // A task later: coming from another screen, the app first moves focus to the new screen's start.
    const timer = setTimeout(() => {
      const heading = id ? document.getElementById(id) : null;
      if (!heading) return;
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    });
    return () => clearTimeout(timer);
  }, [section]);
}

/** Where the egress ledger is: a page of its own, since its rows would bury the settings below them. */
function LedgerLink() {
  return (
    <section class="card" aria-labelledby="ledger-link-title" data-testid="ledger-link">
      <h2 id="ledger-link-title">Egress ledger</h2>
      <p class="small muted">
        Every request this page sent, and every file the conductor model downloaded: when, where, how much,
        for which run.
      </p>
      <a class="button" href="#/ledger" data-testid="open-ledger">
        Open the egress ledger
      </a>
    </section>
  );
}

export function SettingsScreen() {
  const app = useAppState();
  const { capabilities } = app.device;
  const route = app.router.route.value;
  useSectionFocus(route.name === 'settings' ? route.section : undefined);
  return (
    <div data-testid="settings-screen">
      <h1 class="screen-title">Settings</h1>
      <SectionList />
      <PoolPanel />
      <VaultPanel />
      <ToolsPanel />
      <div class="grid-2">
        <ConductorSetup />
        <ModelCachePanel />
      </div>
      <div class="grid-2">
        <PlanningPanel />
        <SpendingPanel />
      </div>
      <SavedPromptsPanel />
      <LearnedStatePanel />
      <BackupsPanel />
      <div class="grid-2">
        <ThemePanel />
        <LedgerLink />
      </div>
      <div class="grid-2">
        <CapabilityPanel caps={capabilities.value} />
      </div>
    </div>
  );
}
