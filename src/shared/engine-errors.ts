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

/**
 * llama.cpp could not turn the text into tokens: the model's chat template cannot take the conversation, or
 * its vocabulary has no token for some characters ("Failed to format input: unordered_map::at: key not
 * found" from a vocabulary without byte tokens).
 */
export function unreadableText(message: string): boolean {
  return /format input|chat template|tokeni[sz]|unordered_map/i.test(message);
}

const UNREADABLE =
  'The on-device model could not read the text it was given: its chat template or its vocabulary cannot take some of it. Choose another conductor model on Start.';

/** What failed and what to do, by the error's name (engine errors and the conductor thread's own). */
const WORDS: Record<string, string> = {
  DeviceLostError:
    'The GPU stopped the on-device model. Reload the page, or choose a smaller model or the CPU engine on Start.',
  OutOfMemoryError:
    'The on-device model ran out of memory. Choose a smaller model, or the CPU engine, on Start.',
  ModelFetchError:
    "The on-device model's files could not be downloaded. Check the connection and try again, or choose another model on Start.",
  WebGpuUnavailableError:
    'The on-device model needs WebGPU, which this page cannot use now. Choose the CPU engine on Start.',
  UnsupportedModelError:
    'This GPU cannot run the on-device model. Choose a smaller model, or the CPU engine, on Start.',
  InvalidModelError:
    'The on-device model could not be found where it was looked for. Choose a model on Start.',
  ServerUnreachableError:
    'The local planner server did not answer. Start it, or let this page call it (its CORS setting), then try again.',
  BrowserModelUnavailableError:
    "The browser's own model cannot be used here now. Choose another conductor model on Start.",
  InputTooLongError:
    "The text is longer than the on-device model's context window. Choose a model with a longer context on Start.",
  UnsupportedLanguageError:
    "The browser's model does not take the language of the text. Choose another conductor model on Start.",
  SessionLostError: "The browser ended the on-device model's session while it was answering. Try again.",
  ThreadCrashed: 'The on-device model stopped unexpectedly; it has been restarted. Try again.',
  ModelNotLoaded: 'No conductor model is loaded. Load one on Start.',
  EngineFailure:
    'The on-device model stopped with an error. Try again; if it fails again, reload the page or choose another model on Start.',
};

/**
 * An on-device engine's failure in words: what failed and what to do, never the engine's own text (llama.cpp's
 * messages name its internals; keep them for details). `undefined` for an error that is not an engine's.
 * Errors cross the thread boundary as `{name, message}`, so the name says which failure it was.
 */
export function engineErrorWords(error: unknown): string | undefined {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const words = WORDS[name];
  if (words === undefined) return undefined;
  return unreadableText(message) ? UNREADABLE : words;
}
