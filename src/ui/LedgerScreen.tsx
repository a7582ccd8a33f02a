import { LedgerPanel } from './LedgerPanel.tsx';

/**
 * The egress ledger on a page of its own, under Settings: a hundred rows a page would push every setting
 * after it thousands of pixels down.
 */
export function LedgerScreen() {
  return (
    <div data-testid="ledger-screen">
      <nav aria-label="Breadcrumb" class="breadcrumb small">
        <a href="#/settings">Settings</a> <span aria-hidden="true">›</span> Egress ledger
      </nav>
      <h1 class="screen-title">Egress ledger</h1>
      <LedgerPanel />
    </div>
  );
}
