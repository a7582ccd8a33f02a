/**
 * Web search as the providers Baton keeps document it (src/providers/catalog.ts, WEB SEARCH), for the test
 * provider: which requests ask a model to search, which the provider refuses, and where the sources go.
 *
 * - OpenAI, https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat: the search models
 *   (`gpt-4o-search-preview`, `gpt-4o-mini-search-preview`) always search on Chat Completions, with or
 *   without `web_search_options`; `web_search_options` for any other model is a 400 "Web search options not
 *   supported with this model." (quoted in cpbotha/obsidian-ai-chat-as-md#5 and
 *   LSTM-Kirigaya/openmcp-client#7). Sources: `annotations: [{type: 'url_citation', url_citation: {url,
 *   title, start_index, end_index}}]` on the message, and on a delta of the stream (MacPaw/OpenAI#399,
 *   openai/openai-agents-js#1617).
 * - OpenRouter, https://openrouter.ai/docs/guides/features/server-tools/web-search: any model given the
 *   server tool `{type: 'openrouter:web_search'}` (or the deprecated `web` plugin or `:online` suffix,
 *   https://openrouter.ai/docs/guides/routing/model-variants/online) may search: the model decides, and
 *   nothing is refused. Sources: the same annotations, with OpenRouter's `content`
 *   (https://openrouter.ai/docs/features/web-search "Parsing web search results"), on `delta.annotations`.
 * - Anthropic, https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool: the tool
 *   `{type: 'web_search_20250305', name: 'web_search'}`; Claude decides when to search. Streamed as a
 *   `server_tool_use` block (its query in an `input_json_delta`), a `web_search_tool_result` block holding the
 *   results, then text whose `citations_delta`s are `web_search_result_location`s; the usage counts
 *   `server_tool_use.web_search_requests`.
 */
import type { DialectMode } from './index.ts';

/** A page a scripted search model "finds". */
export interface SearchSource {
  url: string;
  title: string;
}

/** What the built-in `searcher` model finds. */
export const SEARCH_SOURCES: readonly SearchSource[] = [
  { url: 'https://news.example.com/f1/last-race', title: 'Test driver wins the last race' },
  { url: 'https://results.example.org/2026/round-24', title: 'Round 24 results' },
];

/**
 * A model that searches the web, for tests to register (`startProvider({ models: [SEARCHER] })`) and
 * `npm run provider` to offer: a fixed answer whose sources are SEARCH_SOURCES.
 */
export const SEARCHER = {
  id: 'searcher',
  behaviour: { kind: 'fixed' as const, text: 'The test driver won the last race.' },
  search: { sources: SEARCH_SOURCES },
};

export type SearchOutcome =
  | { kind: 'none' }
  | { kind: 'refused'; status: number; body: unknown }
  | { kind: 'searched'; sources: readonly SearchSource[] };

/** OpenRouter's deprecated suffix for a searching model: the model it names is the id without it. */
export const ONLINE_SUFFIX = ':online';

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

const listed = (value: unknown, match: (item: Record<string, unknown>) => boolean): boolean =>
  Array.isArray(value) && value.some((item) => isObject(item) && match(item));

/**
 * What a Chat Completions request gets, by the dialect the server speaks: `sources` is the model's
 * (undefined for a model that cannot search).
 */
export function chatSearch(
  mode: DialectMode,
  body: Record<string, unknown>,
  sources: readonly SearchSource[] | undefined,
): SearchOutcome {
  if (mode === 'openai') {
    if (sources) return { kind: 'searched', sources };
    if (!('web_search_options' in body)) return { kind: 'none' };
    return {
      kind: 'refused',
      status: 400,
      body: {
        error: {
          message: 'Web search options not supported with this model.',
          type: 'invalid_request_error',
          param: 'web_search_options',
          code: null,
        },
      },
    };
  }
  if (mode === 'openrouter') {
    const asked =
      listed(body.tools, (tool) => tool.type === 'openrouter:web_search') ||
      listed(body.plugins, (plugin) => plugin.id === 'web') ||
      (typeof body.model === 'string' && body.model.endsWith(ONLINE_SUFFIX));
    return asked && sources ? { kind: 'searched', sources } : { kind: 'none' };
  }
  return { kind: 'none' };
}

/** The `url_citation` annotations of an answer, each spanning the whole text. */
export function urlCitations(
  mode: DialectMode,
  sources: readonly SearchSource[],
  text: string,
): Record<string, unknown>[] {
  return sources.map((source) => ({
    type: 'url_citation',
    url_citation: {
      url: source.url,
      title: source.title,
      ...(mode === 'openrouter' ? { content: `Content of ${source.title}` } : {}),
      start_index: 0,
      end_index: text.length,
    },
  }));
}

/** Whether an Anthropic request offers the web search tool. */
export function offersAnthropicSearch(body: Record<string, unknown>): boolean {
  return listed(body.tools, (tool) => tool.type === 'web_search_20250305' && tool.name === 'web_search');
}

/** The `server_tool_use` block of a search for `query` (streamed: `input` empty, the query as a delta). */
export function serverToolUse(id: string, query?: string): Record<string, unknown> {
  return { type: 'server_tool_use', id, name: 'web_search', input: query === undefined ? {} : { query } };
}

/** The `web_search_tool_result` block: one `web_search_result` per page. */
export function webSearchToolResult(id: string, sources: readonly SearchSource[]): Record<string, unknown> {
  return {
    type: 'web_search_tool_result',
    tool_use_id: id,
    content: sources.map((source) => ({
      type: 'web_search_result',
      url: source.url,
      title: source.title,
      encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5',
      page_age: 'April 30, 2025',
    })),
  };
}

/** A text block's citation of a page. */
export function webSearchLocation(source: SearchSource, citedText: string): Record<string, unknown> {
  return {
    type: 'web_search_result_location',
    url: source.url,
    title: source.title,
    encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm',
    cited_text: citedText.slice(0, 150),
  };
}
