/**
 * Typed failures of the on-device engines, by meaning. Shared by the thread (which throws them) and the
 * page (which reads them). Comlink carries only `name`, `message` and `stack` across the thread boundary,
 * so everything the page needs is derivable from `name` (`suggestionsFor`), or send `engineFailure(e)`.
 */

export type EngineErrorName =
  /** The GPU device was lost (driver reset, another tab, or memory pressure). */
  | 'DeviceLostError'
  /** The model does not fit in GPU memory. */
  | 'OutOfMemoryError'
  /** The model files could not be downloaded (offline, blocked host, CORS, 404). */
  | 'ModelFetchError'
  /** No usable WebGPU in this context. */
  | 'WebGpuUnavailableError'
  /** This GPU lacks something the model needs (shader-f16, buffer size). */
  | 'UnsupportedModelError'
  /** The model id or URL is wrong. */
  | 'InvalidModelError'
  /** The local planner server did not answer (not running, another port, or CORS). */
  | 'ServerUnreachableError'
  /** The browser's own model cannot be used here (no Prompt API, `unavailable`, or not downloaded yet). */
  | 'BrowserModelUnavailableError'
  /** The prompt does not fit the browser model's context window (the Prompt API's QuotaExceededError). */
  | 'InputTooLongError'
  /** The browser's model does not take the language of the prompt (the Prompt API's NotSupportedError). */
  | 'UnsupportedLanguageError'
  /** The browser ended the model's session while it was answering (destroyed, or the model was unloaded). */
  | 'SessionLostError'
  /** Anything else while loading or generating. */
  | 'EngineFailure';

/** What the page should offer next, best first. */
export type EngineSuggestion =
  | 'reload'
  | 'smaller-model'
  | 'cpu'
  | 'retry'
  | 'pick-model'
  /** Start the local server, or let this page call it (its CORS setting). */
  | 'server-setup';

const SUGGESTIONS: Record<EngineErrorName, EngineSuggestion[]> = {
  DeviceLostError: ['reload', 'smaller-model', 'cpu'],
  OutOfMemoryError: ['smaller-model', 'cpu'],
  ModelFetchError: ['cpu', 'retry'],
  WebGpuUnavailableError: ['cpu'],
  UnsupportedModelError: ['smaller-model', 'cpu'],
  InvalidModelError: ['pick-model'],
  ServerUnreachableError: ['server-setup', 'retry', 'cpu'],
  BrowserModelUnavailableError: ['pick-model', 'cpu'],
  InputTooLongError: ['pick-model'],
  UnsupportedLanguageError: ['pick-model'],
  SessionLostError: ['retry'],
  EngineFailure: ['retry', 'cpu'],
};

/**
 * Failures where another engine can take the same request as it is: the question did not fit this model, or
 * its session went away. A plan then moves to the engine the user allowed next (workers/engine-host.ts).
 */
const HANDED_OVER: ReadonlySet<string> = new Set<EngineErrorName>([
  'BrowserModelUnavailableError',
  'InputTooLongError',
  'UnsupportedLanguageError',
  'SessionLostError',
]);

export function handsOver(name: string): boolean {
  return HANDED_OVER.has(name);
}

const NAMES = new Set(Object.keys(SUGGESTIONS));

export function isEngineErrorName(name: string): name is EngineErrorName {
  return NAMES.has(name);
}

/** The suggestions for an error name (as it arrives over comlink); [] for names that are not ours. */
export function suggestionsFor(name: string): EngineSuggestion[] {
  return isEngineErrorName(name) ? [...SUGGESTIONS[name]] : [];
}

export class EngineError extends Error {
  override readonly name: EngineErrorName;
  /** The first thing to offer. */
  readonly suggestion: EngineSuggestion;
  readonly suggestions: EngineSuggestion[];

  constructor(name: EngineErrorName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
    this.suggestions = suggestionsFor(name);
    this.suggestion = this.suggestions[0] ?? 'retry';
  }
}

/** A plain, structured-cloneable description of an engine failure (for a typed result across comlink). */
export interface EngineFailure {
  name: string;
  message: string;
  suggestion?: EngineSuggestion;
  suggestions: EngineSuggestion[];
}

export function engineFailure(error: unknown): EngineFailure {
  const e = error instanceof Error ? error : new Error(String(error));
  const suggestions = e instanceof EngineError ? e.suggestions : suggestionsFor(e.name);
  const failure: EngineFailure = { name: e.name, message: e.message, suggestions };
  if (suggestions[0]) failure.suggestion = suggestions[0];
  return failure;
}
