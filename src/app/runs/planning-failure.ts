import { unreadableText } from '../../shared/engine-errors.ts';

/**
 * What the user reads when the conductor could not write a plan: what failed, in words, and the
 * machinery's own message kept for Details. Errors cross the thread boundary as `{name, message}`, so
 * the name (engine-errors.ts, conductor-api.ts) says what kind of failure it was.
 */
export interface PlanningFailure {
  text: string;
  details: string[];
}

const BY_NAME: Record<string, string> = {
  ThreadCrashed: 'The on-device planner stopped unexpectedly; it has been restarted.',
  ModelNotLoaded: 'No planner model is loaded: load one on Start first.',
  NoWorkers: 'Your pool has no worker to plan for: add one in Settings.',
  DeviceLostError: 'The GPU stopped the on-device planner while it was writing the plan.',
  OutOfMemoryError: 'The on-device planner ran out of memory while writing the plan.',
  ServerUnreachableError: 'The local planner server did not answer.',
  WebGpuUnavailableError: 'The on-device planner needs WebGPU, which this page cannot use now.',
  ModelFetchError: "The planner model's files could not be downloaded.",
};

export function planningFailure(error: unknown): PlanningFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  const details = [name === 'Error' ? message : `${name}: ${message}`];
  const known = BY_NAME[name];
  if (known) return { text: `Planning failed. ${known}`, details };
  // llama.cpp builds the prompt with the model's chat template; a template that cannot take the
  // conversation (or a tokenizer that cannot take its characters) fails here, before any planning.
  if (unreadableText(message)) {
    return { text: 'Planning failed. The on-device model could not read your question.', details };
  }
  return {
    text: 'Planning failed. The on-device planner stopped with an error before the plan was written.',
    details,
  };
}
