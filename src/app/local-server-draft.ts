/** The local planner server's form state and its rules, kept pure so they are unit-tested. */

import { presetById } from '../providers/catalog.ts';
import { isLoopbackHostname, localServerUrlProblem } from '../shared/loopback.ts';
import type { LocalServerKind, ModelRef } from '../shared/model.ts';

export type LocalServerModel = Extract<ModelRef, { engine: 'local-server' }>;

/** What the form holds while the user types. */
export interface LocalServerDraft {
  server: LocalServerKind;
  baseURL: string;
  model: string;
}

export const SERVER_NAMES: Record<LocalServerKind, string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  llamacpp: 'llama.cpp server',
  vllm: 'vLLM',
};

/** A server's default base URL (the catalog's), and no model yet. */
export function defaultDraft(server: LocalServerKind = 'ollama'): LocalServerDraft {
  return { server, baseURL: presetById(server)?.baseURL ?? 'http://localhost:11434/v1', model: '' };
}

/** The form for a model chosen before (loaded now, or saved), if it was a local server. */
export function draftOf(model: ModelRef | undefined): LocalServerDraft | undefined {
  if (model?.engine !== 'local-server') return undefined;
  return { server: model.server ?? 'ollama', baseURL: model.baseURL, model: model.model };
}

/** Another server chosen: its default base URL replaces the old one, unless the user had typed their own. */
export function withServer(draft: LocalServerDraft, server: LocalServerKind): LocalServerDraft {
  const typed = draft.baseURL !== defaultDraft(draft.server).baseURL;
  return { ...draft, server, baseURL: typed ? draft.baseURL : defaultDraft(server).baseURL };
}

/** Reads the form: the model to load, or why it cannot be loaded (a non-loopback URL above all). */
export function localServerModel(draft: LocalServerDraft): LocalServerModel | string {
  const problem = localServerUrlProblem(draft.baseURL);
  if (problem) return problem;
  const model = draft.model.trim();
  if (!model) return 'Enter the model id the server knows (for Ollama, a name like qwen2.5:14b).';
  return {
    engine: 'local-server',
    baseURL: draft.baseURL.trim().replace(/\/+$/, ''),
    model,
    server: draft.server,
  };
}

/** How to let this page call the server (its CORS setting), with this page's origin filled in. */
export function corsHintFor(server: LocalServerKind, origin: string): string | undefined {
  return presetById(server)?.corsHint?.replaceAll('<this page origin>', origin);
}

/**
 * Whether a page at `pageURL` needs the user's leave to reach a server on this machine: Chrome's Local
 * Network Access asks for it when a public https site calls loopback (a page served from this machine
 * does not ask).
 */
export function needsLocalNetworkAccess(pageURL: string): boolean {
  const page = new URL(pageURL);
  return page.protocol === 'https:' && !isLoopbackHostname(page.hostname);
}

/** The first ids of a long list (all of them are in the model field's suggestions). */
export function shortList(ids: readonly string[], most = 12): string {
  return ids.length <= most
    ? ids.join(', ')
    : `${ids.slice(0, most).join(', ')} and ${ids.length - most} more`;
}
