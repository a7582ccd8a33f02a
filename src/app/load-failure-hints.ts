import type { EngineSuggestion } from '../shared/engine-errors.ts';
import type { ModelRef } from '../shared/model.ts';
import { modelLabel } from './conductor.ts';
import { corsHintFor } from './local-server-draft.ts';

/** One thing to try after a failed load, as a sentence, with a button where one click does it. */
export type Hint = { kind: EngineSuggestion; text: string; action?: { label: string; run: () => void } };

/**
 * The engine's own suggestions after a failed load, in its order, as sentences (and a button where one
 * click does it). The CPU offer is dropped when the CPU engine is what failed.
 */
export function loadFailureHints(
  suggestions: readonly EngineSuggestion[],
  failed: ModelRef | undefined,
  cpuModel: ModelRef,
  load: (model: ModelRef) => void,
): Hint[] {
  const hints: Hint[] = [];
  for (const kind of suggestions) {
    if (kind === 'cpu') {
      if (failed?.engine === 'wllama') continue;
      hints.push({
        kind,
        text: `Use the CPU engine instead (${modelLabel(cpuModel)}): slower, but it needs no GPU.`,
        action: { label: 'Use the CPU engine', run: () => load(cpuModel) },
      });
    } else if (kind === 'server-setup') {
      const server = failed?.engine === 'local-server' ? failed : undefined;
      const cors = corsHintFor(server?.server ?? 'ollama', location.origin);
      hints.push({
        kind,
        text: `Check that the server is running${server ? ` at ${new URL(server.baseURL).origin}` : ''}. ${cors ?? ''}`.trim(),
      });
    } else if (kind === 'smaller-model') {
      hints.push({ kind, text: 'Choose a smaller model above: this one needs more than the GPU can give.' });
    } else if (kind === 'reload') {
      hints.push({
        kind,
        text: 'Reload the page to get the GPU back.',
        action: { label: 'Reload the page', run: () => location.reload() },
      });
    } else if (kind === 'retry') {
      // The button says "Try again"; the sentence says why it may work, not the same words again.
      hints.push({
        kind,
        text: 'The cause may have passed (a dropped connection, a busy device).',
        ...(failed ? { action: { label: 'Try again', run: () => load(failed) } } : {}),
      });
    } else {
      hints.push({ kind, text: "Check the model's id or URL, or choose another model above." });
    }
  }
  return hints;
}
