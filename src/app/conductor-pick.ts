/**
 * The Start screen's pick of a conductor model, as the app reads it: which model the select and the fields
 * under it name, and what the load button does with it (say what is wrong, ask before a switch, or load).
 * The view holds the fields and shows what these say.
 */

import { localServerUrlProblem } from '../shared/loopback.ts';
import type { ModelRef } from '../shared/model.ts';
import type { ConductorChoice } from '../shared/model-choice.ts';
import { customModel, modelKey } from './conductor-options.ts';
import { type LocalServerDraft, localServerModel } from './local-server-draft.ts';

/** The select's value for a model by URL (its fields say which). */
export const CUSTOM_MODEL = 'custom';
/** The select's value for the local planner server (its fields say which server and model). */
export const LOCAL_SERVER = 'local-server';

/** What the pick holds: the select's value and the fields under it. */
export interface ModelPick {
  key: string;
  customUrl: string;
  customLib: string;
  server: LocalServerDraft;
}

/** The select's value: the user's, else the local server when one is loaded, else the recommendation. */
export function pickedKey(
  selected: string,
  loaded: ModelRef | undefined,
  choice: ConductorChoice | undefined,
): string {
  return (
    selected || (loaded?.engine === 'local-server' ? LOCAL_SERVER : choice ? modelKey(choice.model) : '')
  );
}

/** A model typed in the fields (by URL, or on a local server), or why it cannot be loaded; none for a listed one. */
function typedModel(pick: ModelPick): ModelRef | string | undefined {
  if (pick.key === CUSTOM_MODEL) return customModel(pick.customUrl, pick.customLib);
  if (pick.key === LOCAL_SERVER) return localServerModel(pick.server);
  return undefined;
}

/** The model the pick names, when it names one that can be loaded. */
export function pickedModel(pick: ModelPick, models: readonly ModelRef[]): ModelRef | undefined {
  if (pick.key !== CUSTOM_MODEL && pick.key !== LOCAL_SERVER)
    return models.find((o) => modelKey(o) === pick.key);
  const typed = typedModel(pick);
  return typeof typed === 'object' ? typed : undefined;
}

/** What the load button does with the pick. */
export type PickStart =
  /** The fields are not right: the message goes under the custom URL or the server's form. */
  | { refused: 'custom' | 'server'; message: string }
  /** The server's URL is refused: its field explains it as it is typed, so the focus goes there. */
  | { refused: 'server-url' }
  /** Another model is loaded: the user confirms unloading it first. */
  | { switchTo: ModelRef }
  | { load: ModelRef }
  | undefined;

export function startPick(
  pick: ModelPick,
  models: readonly ModelRef[],
  loaded: ModelRef | undefined,
): PickStart {
  const typed = typedModel(pick);
  if (typeof typed === 'string') {
    if (pick.key !== LOCAL_SERVER) return { refused: 'custom', message: typed };
    return localServerUrlProblem(pick.server.baseURL) !== undefined
      ? { refused: 'server-url' }
      : { refused: 'server', message: typed };
  }
  const model = pickedModel(pick, models);
  if (!model) return undefined;
  return loaded && !sameModel(loaded, model) ? { switchTo: model } : { load: model };
}

/** Whether two models are one (both given). */
export function sameModel(a: ModelRef | undefined, b: ModelRef | undefined): boolean {
  return !!a && !!b && modelKey(a) === modelKey(b);
}
