/** The baton mark (decorative: the name is always next to it). */
export function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="var(--accent)" />
      <path d="M8 24 L22 10" stroke="var(--accent-text)" stroke-width="3" stroke-linecap="round" />
      <circle cx="23.5" cy="8.5" r="2.5" fill="var(--accent-text)" />
    </svg>
  );
}
