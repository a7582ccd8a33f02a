/**
 * Web search as each kept provider speaks it (the catalog's WEB SEARCH table): what a searching worker's
 * request adds, and the sources a provider's answer cites, read from each wire's documented shape. Pure: no
 * DOM, no network. A source is only ever a link the user may follow: Baton never fetches it.
 */
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { presetById } from './catalog.ts';
import { type Dialect, dialectOf } from './dialects.ts';
import type { Citation } from './transport.ts';

/** Longest URL and title kept: a source is display, and what a provider streams is untrusted. */
const MAX_URL_CHARS = 2048;
const MAX_TITLE_CHARS = 300;
/** Most sources a step keeps: a stream that sends thousands must not grow the step, its record or the page. */
export const MAX_CITATIONS = 50;

/**
 * A source as a citation, or undefined unless its URL is an absolute http(s) URL without credentials:
 * no `javascript:`, `data:` or `file:` link ever reaches the page. The title is one line of plain text.
 */
export function citationOf(url: unknown, title?: unknown): Citation | undefined {
  if (typeof url !== 'string' || url.length > MAX_URL_CHARS) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.username || parsed.password) return undefined;
  const citation: Citation = { url: parsed.href };
  if (typeof title === 'string') {
    const line = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (line) citation.title = line;
  }
  return citation;
}

/**
 * `list` with `citation` added, or `list` itself when it has that URL already (a later title fills in a
 * missing one) or holds MAX_CITATIONS. Keeps the order the sources came in.
 */
export function withCitation(list: readonly Citation[] | undefined, citation: Citation): Citation[] {
  const current = list ?? [];
  const at = current.findIndex((c) => c.url === citation.url);
  if (at >= 0) {
    if (current[at]?.title || !citation.title) return current as Citation[];
    const next = current.slice();
    next[at] = citation;
    return next;
  }
  if (current.length >= MAX_CITATIONS) return current as Citation[];
  return [...current, citation];
}

// ---------------------------------------------------------------------------------------------------------
// The request.

/**
 * Whether a worker of this provider can be a searching one: its provider documents a search request Baton
 * sends, or it is a custom endpoint whose model the user says searches by itself.
 */
export function offersWebSearch(providerId: string): boolean {
  if (presetById(providerId)?.kind === 'custom') return true;
  const request = dialectOf(providerId).webSearch;
  return request !== 'none' && request !== 'model';
}

/** OpenRouter's suffix for a model that searches: deprecated, and dropped when the server tool is sent. */
const ONLINE_SUFFIX = ':online';

/** What a worker's Chat Completions request adds to search, and the model id it names. */
export interface OpenAISearchRequest {
  model: string;
  /** Extra top-level body fields; empty for an ordinary worker. */
  fields: {
    web_search_options?: Record<string, never>;
    tools?: { type: 'openrouter:web_search' }[];
  };
}

/**
 * The search request of a worker on the OpenAI wire, by its dialect; an ordinary worker's request is left
 * as it is.
 * - OpenAI: `web_search_options: {}` (the search models search with or without it; other models refuse it
 *   with a 400), https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat
 * - OpenRouter: the server tool `{type: 'openrouter:web_search'}`, with any model; a model id ending in
 *   `:online` (the deprecated shortcut the catalog names its preset with) is sent without it, as OpenRouter
 *   says to once the tool is there: https://openrouter.ai/docs/guides/routing/model-variants/online
 */
export function openaiSearchRequest(worker: WorkerSpec, dialect: Dialect): OpenAISearchRequest {
  if (!worker.webSearch) return { model: worker.model, fields: {} };
  switch (dialect.webSearch) {
    case 'web_search_options':
      return { model: worker.model, fields: { web_search_options: {} } };
    case 'openrouter-tool': {
      const model = worker.model.endsWith(ONLINE_SUFFIX)
        ? worker.model.slice(0, -ONLINE_SUFFIX.length)
        : worker.model;
      return { model, fields: { tools: [{ type: 'openrouter:web_search' }] } };
    }
    default:
      return { model: worker.model, fields: {} };
  }
}

/**
 * Anthropic's web search tool as a request names it; `max_uses` bounds the searches (each costs $0.01) of
 * one step. https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
 */
export const ANTHROPIC_WEB_SEARCH_TOOL = {
  type: 'web_search_20250305',
  name: 'web_search',
  max_uses: 5,
} as const;

// ---------------------------------------------------------------------------------------------------------
// The answer's sources.

function citations(pairs: Iterable<[unknown, unknown]>): Citation[] {
  const out: Citation[] = [];
  for (const [url, title] of pairs) {
    const citation = citationOf(url, title);
    if (citation) out.push(citation);
  }
  return out;
}

const array = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => !!v && typeof v === 'object') : [];

/**
 * `url_citation` annotations: `{type: 'url_citation', url_citation: {url, title}}` on a Chat Completions
 * message or delta (OpenAI, and OpenRouter for every model:
 * https://openrouter.ai/docs/guides/features/web-search "Parsing web search results"), or the flat
 * `{type: 'url_citation', url, title}` some compatible servers send.
 */
function* annotationPairs(annotations: unknown): Generator<[unknown, unknown]> {
  for (const annotation of array(annotations)) {
    if (annotation.type !== 'url_citation') continue;
    const inner = annotation.url_citation as Record<string, unknown> | undefined;
    const source = inner && typeof inner === 'object' ? inner : annotation;
    yield [source.url, source.title];
  }
}

/**
 * The sources one Chat Completions chunk (or whole completion) carries: each choice's `delta.annotations`
 * and `message.annotations`, and Perplexity's top-level `search_results` (`[{title, url, date}]`) and
 * `citations` (URLs), which an OpenAI-compatible endpoint may still pass on
 * (https://docs.perplexity.ai/guides/chat-completions-guide, "response structure").
 */
export function chunkCitations(chunk: unknown): Citation[] {
  if (!chunk || typeof chunk !== 'object') return [];
  const c = chunk as { choices?: unknown; search_results?: unknown; citations?: unknown };
  const pairs: [unknown, unknown][] = [];
  for (const choice of array(c.choices)) {
    // Read for every streamed chunk, so a chunk without annotations costs no generator.
    const delta = choice.delta as { annotations?: unknown } | undefined;
    const message = choice.message as { annotations?: unknown } | undefined;
    if (delta?.annotations) pairs.push(...annotationPairs(delta.annotations));
    if (message?.annotations) pairs.push(...annotationPairs(message.annotations));
  }
  for (const result of array(c.search_results)) pairs.push([result.url, result.title]);
  if (Array.isArray(c.citations)) for (const url of c.citations) pairs.push([url, undefined]);
  return citations(pairs);
}

/**
 * The sources of one Anthropic content block, streamed (`content_block_start`) or in a whole message: the
 * results of a `web_search_tool_result` (`content: [{type: 'web_search_result', url, title}]`; an error is an
 * object, not a list) and the `web_search_result_location` citations of a text block.
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
 */
export function anthropicBlockCitations(block: Record<string, unknown> | undefined): Citation[] {
  if (block?.type === 'web_search_tool_result') {
    return citations(
      array(block.content)
        .filter((r) => r.type === 'web_search_result')
        .map((r): [unknown, unknown] => [r.url, r.title]),
    );
  }
  if (block?.type === 'text') return anthropicLocations(block.citations);
  return [];
}

/** A streamed `citations_delta` (one citation added to the current text block), as a source. */
export function anthropicDeltaCitations(delta: Record<string, unknown> | undefined): Citation[] {
  return delta?.type === 'citations_delta' ? anthropicLocations([delta.citation]) : [];
}

/** Only web search locations carry a URL (document citations point into the request's own documents). */
function anthropicLocations(list: unknown): Citation[] {
  return citations(
    array(list)
      .filter((c) => c.type === 'web_search_result_location')
      .map((c): [unknown, unknown] => [c.url, c.title]),
  );
}
