import type { ComponentChildren } from 'preact';

/**
 * One short sentence for the user, with what the machinery said (validator messages, an engine's own
 * error) behind a "Details" disclosure: there for whoever wants it, never in the way of the sentence.
 */
export function Notice({
  kind,
  text,
  details = [],
  testId,
  role,
  children,
}: {
  kind: 'warn' | 'error' | 'info';
  text: string;
  details?: readonly string[];
  testId?: string;
  role?: 'alert' | 'status';
  /** Actions under the sentence (Try again). */
  children?: ComponentChildren;
}) {
  return (
    <div class="alert notice" data-kind={kind} data-testid={testId} role={role}>
      <p>{text}</p>
      {children}
      {details.length > 0 && (
        <details>
          <summary class="small">Details</summary>
          <ul class="small notice-details">
            {details.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
