import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicTransport } from '../../../src/providers/anthropic-transport.ts';
import { CATALOG, presetById } from '../../../src/providers/catalog.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { ChatEvent, Citation } from '../../../src/providers/transport.ts';
import {
  ANTHROPIC_WEB_SEARCH_TOOL,
  anthropicBlockCitations,
  anthropicDeltaCitations,
  chunkCitations,
  citationOf,
  MAX_CITATIONS,
  offersWebSearch,
  withCitation,
} from '../../../src/providers/web-search.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import type { DialectMode } from '../../provider/dialects/index.ts';
import { SEARCH_SOURCES, SEARCHER } from '../../provider/dialects/web-search.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { type RecordedRequest, startProvider, type TestProvider } from '../../provider/server.ts';

// A searching worker's request carries its provider's documented search request and an ordinary worker's
// does not: over HTTP against the test provider imitating each kept provider (its log holds the bodies),
// with the sources each one streams read back as citations.

const providers = new Map<DialectMode | 'anthropic', TestProvider>();
beforeAll(async () => {
  providers.set('openai', await startProvider({ dialect: 'openai', models: [SEARCHER] }));
  providers.set('openrouter', await startProvider({ dialect: 'openrouter', models: [SEARCHER] }));
  providers.set('anthropic', await startProvider({ models: [SEARCHER] }));
});
afterAll(async () => {
  await Promise.all([...providers.values()].map((p) => p.close()));
});

function at(mode: DialectMode | 'anthropic'): TestProvider {
  const provider = providers.get(mode);
  if (!provider) throw new Error(`no ${mode} provider`);
  return provider;
}

function worker(providerId: 'openai' | 'openrouter' | 'anthropic', model: string, webSearch: boolean) {
  const spec: WorkerSpec = workerSpec({
    id: 'w1',
    label: 'W1',
    providerId,
    baseURL: at(providerId).baseURL,
    model,
  });
  if (webSearch) spec.webSearch = true;
  return spec;
}

async function collect(spec: WorkerSpec): Promise<ChatEvent[]> {
  const transport =
    spec.providerId === 'anthropic'
      ? createAnthropicTransport({ fetch: (input, init) => fetch(input, init) })
      : createOpenAITransport({ fetch: directFetch });
  const events: ChatEvent[] = [];
  const stream = transport.stream(spec, {
    messages: [{ role: 'user', content: 'Who won the last F1 race?' }],
    signal: new AbortController().signal,
    runId: 'run-1',
    stepIndex: 0,
  });
  for await (const event of stream) events.push(event);
  return events;
}

const lastPost = (mode: DialectMode | 'anthropic'): RecordedRequest | undefined =>
  at(mode)
    .requests.filter((r) => r.method === 'POST')
    .at(-1);
const bodyOf = (mode: DialectMode | 'anthropic') => lastPost(mode)?.body as Record<string, unknown>;
const citationsIn = (events: ChatEvent[]): Citation[] =>
  events.flatMap((e) =>
    e.type === 'citation' ? [{ url: e.url, ...(e.title ? { title: e.title } : {}) }] : [],
  );
const answer = (events: ChatEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
const SOURCES = SEARCH_SOURCES.map(({ url, title }) => ({ url, title }));

describe('OpenAI: the search models with web_search_options', () => {
  it('a searching worker sends web_search_options and reads the url_citation annotations', async () => {
    const events = await collect(worker('openai', 'searcher', true));
    expect(bodyOf('openai')).toMatchObject({ model: 'searcher', web_search_options: {} });
    expect(answer(events)).toBe('The test driver won the last race.');
    expect(citationsIn(events)).toEqual(SOURCES);
  });

  it('an ordinary worker sends none, and gets no sources', async () => {
    const events = await collect(worker('openai', 'echo', false));
    expect(bodyOf('openai')).not.toHaveProperty('web_search_options');
    expect(bodyOf('openai')).not.toHaveProperty('tools');
    expect(citationsIn(events)).toEqual([]);
  });

  it('web_search_options for a model that cannot search is refused with OpenAI’s 400, said as such', async () => {
    const error = await collect(worker('openai', 'echo', true)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(400);
    expect((error as ProviderError).message).toContain('Web search options not supported with this model');
  });
});

describe('OpenRouter: the openrouter:web_search server tool', () => {
  it('a searching worker sends the tool, drops the deprecated :online suffix, and reads the annotations', async () => {
    const events = await collect(worker('openrouter', 'searcher:online', true));
    const body = bodyOf('openrouter');
    expect(body.model).toBe('searcher');
    expect(body.tools).toEqual([{ type: 'openrouter:web_search' }]);
    expect(body).not.toHaveProperty('web_search_options');
    expect(citationsIn(events)).toEqual(SOURCES);
  });

  it('an ordinary worker sends no tool: the same model then does not search', async () => {
    const events = await collect(worker('openrouter', 'searcher', false));
    expect(bodyOf('openrouter')).not.toHaveProperty('tools');
    expect(answer(events)).toBe('The test driver won the last race.');
    expect(citationsIn(events)).toEqual([]);
  });
});

describe('Anthropic: the web_search_20250305 server tool', () => {
  it('a searching worker offers the tool and reads the results and the text’s citations', async () => {
    const events = await collect(worker('anthropic', 'searcher', true));
    expect(bodyOf('anthropic').tools).toEqual([ANTHROPIC_WEB_SEARCH_TOOL]);
    expect(ANTHROPIC_WEB_SEARCH_TOOL).toMatchObject({ type: 'web_search_20250305', name: 'web_search' });
    expect(answer(events)).toBe('The test driver won the last race.');
    // The search's results, then each citation of the text again (the step keeps each URL once).
    expect(citationsIn(events)).toEqual([...SOURCES, ...SOURCES]);
  });

  it('an ordinary worker offers no tool', async () => {
    const events = await collect(worker('anthropic', 'searcher', false));
    expect(bodyOf('anthropic')).not.toHaveProperty('tools');
    expect(citationsIn(events)).toEqual([]);
  });
});

describe('the catalog', () => {
  it('marks only the search presets of the kept providers, and each one works as a worker', () => {
    const marked = CATALOG.flatMap((p) => p.models.filter((m) => m.webSearch).map((m) => `${p.id} ${m.id}`));
    expect(marked).toEqual([
      'openai gpt-4o-mini-search-preview',
      'openai gpt-4o-search-preview',
      'anthropic claude-haiku-4-5-20251001',
      'openrouter openai/gpt-5-mini:online',
    ]);
    for (const provider of CATALOG) {
      const ids = provider.models.map((m) => m.id);
      expect(new Set(ids).size, provider.id).toBe(ids.length);
    }
  });

  it('offers the checkbox where a search request is documented, and for custom endpoints', () => {
    const offered = CATALOG.filter((p) => offersWebSearch(p.id)).map((p) => p.id);
    expect(offered).toEqual(['openai', 'anthropic', 'openrouter', 'custom']);
    expect(presetById('perplexity')).toBeUndefined();
  });
});

describe('citations as each wire documents them', () => {
  it('keeps only absolute http(s) URLs without credentials, titles as one short line', () => {
    expect(citationOf('https://example.com/a b', '  A\n title ')).toEqual({
      url: 'https://example.com/a%20b',
      title: 'A title',
    });
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      '/relative/path',
      'https://user:pass@example.com/',
      42,
      undefined,
    ]) {
      expect(citationOf(url, 'x'), String(url)).toBeUndefined();
    }
    expect(citationOf('https://example.com/', 'x'.repeat(1000))?.title).toHaveLength(300);
  });

  it('keeps each URL once, fills in a missing title, and stops at the cap', () => {
    let list = withCitation(undefined, { url: 'https://a.example/' });
    list = withCitation(list, { url: 'https://a.example/', title: 'A' });
    list = withCitation(list, { url: 'https://a.example/', title: 'Other' });
    list = withCitation(list, { url: 'https://b.example/' });
    expect(list).toEqual([{ url: 'https://a.example/', title: 'A' }, { url: 'https://b.example/' }]);
    for (let i = 0; i < 2 * MAX_CITATIONS; i++) list = withCitation(list, { url: `https://c.example/${i}` });
    expect(list).toHaveLength(MAX_CITATIONS);
  });
});

describe('chunkCitations (Chat Completions)', () => {
  it('reads url_citation annotations on a message (OpenAI’s and OpenRouter’s documented shape) and on a delta', () => {
    // https://openrouter.ai/docs/features/web-search, "Parsing web search results".
    const message = {
      choices: [
        {
          message: {
            role: 'assistant',
            content: "Here's the latest news I found: ...",
            annotations: [
              {
                type: 'url_citation',
                url_citation: {
                  url: 'https://www.example.com/web-search-result',
                  title: 'Title of the web search result',
                  content: 'Content of the web search result',
                  start_index: 100,
                  end_index: 200,
                },
              },
            ],
          },
        },
      ],
    };
    expect(chunkCitations(message)).toEqual([
      { url: 'https://www.example.com/web-search-result', title: 'Title of the web search result' },
    ]);
    const delta = {
      choices: [
        { delta: { annotations: [{ type: 'url_citation', url: 'https://flat.example/', title: 'Flat' }] } },
      ],
    };
    expect(chunkCitations(delta)).toEqual([{ url: 'https://flat.example/', title: 'Flat' }]);
  });

  it('reads Perplexity’s search_results (with titles) and citations (URLs) from a chunk', () => {
    const chunk = {
      choices: [{ delta: { content: 'It rained [1].' } }],
      search_results: [{ title: 'Weather today', url: 'https://weather.example/today', date: '2026-11-30' }],
      citations: ['https://weather.example/today', 'https://news.example/rain'],
    };
    expect(chunkCitations(chunk)).toEqual([
      { url: 'https://weather.example/today', title: 'Weather today' },
      { url: 'https://weather.example/today' },
      { url: 'https://news.example/rain' },
    ]);
  });

  it('reads nothing from other annotations, bad URLs or odd shapes', () => {
    expect(
      chunkCitations({
        choices: [
          {
            delta: {
              annotations: [
                { type: 'file_citation', file_citation: { file_id: 'f' } },
                { type: 'url_citation', url_citation: { url: 'javascript:alert(1)', title: 'x' } },
                null,
                'https://string.example/',
              ],
            },
          },
        ],
        citations: 'https://not-a-list.example/',
        search_results: [{ url: '<img src=x>' }],
      }),
    ).toEqual([]);
    for (const odd of [null, 'text', 42, { choices: 'none' }]) expect(chunkCitations(odd)).toEqual([]);
  });
});

describe('Anthropic blocks and deltas', () => {
  // The docs' example response, https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
  const result = {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
    content: [
      {
        type: 'web_search_result',
        url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
        title: 'Claude Shannon - Wikipedia',
        encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y...',
        page_age: 'April 30, 2025',
      },
    ],
  };
  const location = {
    type: 'web_search_result_location',
    url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
    title: 'Claude Shannon - Wikipedia',
    encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm..',
    cited_text: 'Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician',
  };
  const shannon = {
    url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
    title: 'Claude Shannon - Wikipedia',
  };

  it('reads a web_search_tool_result’s results and a text block’s web search citations', () => {
    expect(anthropicBlockCitations(result)).toEqual([shannon]);
    expect(
      anthropicBlockCitations({
        type: 'text',
        text: 'Claude Shannon was born on April 30, 1916, in Petoskey, Michigan',
        citations: [location],
      }),
    ).toEqual([shannon]);
    expect(anthropicDeltaCitations({ type: 'citations_delta', citation: location })).toEqual([shannon]);
  });

  it('reads nothing from a search error, a document citation, the query or a text delta', () => {
    const error = {
      type: 'web_search_tool_result',
      tool_use_id: 'servertoolu_a93jad',
      content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
    };
    expect(anthropicBlockCitations(error)).toEqual([]);
    expect(
      anthropicDeltaCitations({
        type: 'citations_delta',
        citation: { type: 'char_location', cited_text: 'T', document_index: 0 },
      }),
    ).toEqual([]);
    expect(anthropicBlockCitations({ type: 'server_tool_use', id: 'x', name: 'web_search' })).toEqual([]);
    expect(anthropicDeltaCitations({ type: 'text_delta', text: 'https://example.com/' })).toEqual([]);
  });
});
