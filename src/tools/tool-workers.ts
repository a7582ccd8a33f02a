/**
 * Which workers' models can call tools, for the plan language (`PlanTools.toolWorkers`) and the
 * conductor's pool. Every wire Baton speaks to a provider documents tool calling (OpenAI's Chat Completions
 * `tools`, which Gemini's, Mistral's, Groq's, DeepSeek's, xAI's, Together's and OpenRouter's compatible
 * endpoints take; Anthropic's `tool_use`). Not: the built-in workers (the conductor, the on-device model, the
 * code runner), and OpenAI's search models, which refuse `tools` ("web_search_options" models take no
 * function tools: https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat).
 */
import { dialectOf } from '../providers/dialects.ts';
import { LOCAL_WORKER, RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export function callsTools(worker: Pick<WorkerSpec, 'id' | 'providerId' | 'webSearch'>): boolean {
  if (worker.id === SELF_WORKER || worker.id === LOCAL_WORKER || worker.id === RUN_WORKER) return false;
  return !(worker.webSearch === true && dialectOf(worker.providerId).webSearch === 'web_search_options');
}
