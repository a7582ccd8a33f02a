import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { exportRunJson, exportRunMarkdown, parseRunImport } from '../../../src/app/export.ts';
import { inertProblems } from '../../../src/app/inert-markdown.ts';
import { exportThreadMarkdown } from '../../../src/app/thread-export.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';

// A searching worker's sources in the exports: carried whole in JSON, and in Markdown as links that are
// only http(s) and whose titles are inert text.

describe("a searching worker's sources, in the exports", () => {
  const run = goodRun('r', 1000, { pool: [{ ...goodRun('r', 1000).pool[0]!, webSearch: true }] });
  const hostileTitle = '<img src=x onerror=alert(1)> [click](javascript:alert(1)) https://evil.example/';
  const citations = [
    { url: 'https://news.example.com/f1/last-race', title: 'Test driver wins the last race' },
    { url: 'https://en.wikipedia.org/wiki/Foo_(bar)', title: hostileTitle },
    { url: 'https://bare.example.org/no-title' },
  ];
  const step = goodStep('r', 0, { citations });

  it('keeps them, and the worker’s search mark, through a JSON export and import', () => {
    const json = exportRunJson(run, [step]);
    const result = parseRunImport(json);
    if (!result.ok) throw new Error(result.error);
    expect(result.data.steps[0]?.citations).toEqual(citations);
    expect(result.data.run.pool[0]?.webSearch).toBe(true);
    // A file edited to hold a script link loses that source on import, not the run.
    const edited = json.replace('https://bare.example.org/no-title', 'javascript:alert(1)');
    const imported = parseRunImport(edited);
    if (!imported.ok) throw new Error(imported.error);
    expect(imported.data.steps[0]?.citations).toEqual(citations.slice(0, 2));
  });

  it('lists them under the step in Markdown as http(s) links, each title text and its host beside it', async () => {
    const md = exportRunMarkdown(run, [
      { ...step, citations: [...citations, { url: 'javascript:alert(1)' }] },
    ]);
    expect(md).toContain(
      '**Sources**\n\n1. [Test driver wins the last race](<https://news.example.com/f1/last-race>) · news.example.com',
    );
    expect(md).toContain('3. [bare.example.org](<https://bare.example.org/no-title>) · bare.example.org');
    expect(md).not.toContain('4. [');
    const html = await marked.parse(md, { gfm: true });
    const hrefs = [...html.matchAll(/<a\s([^>]*)>/g)].map((m) => m[1]);
    expect(hrefs).toEqual([
      'href="https://news.example.com/f1/last-race"',
      'href="https://en.wikipedia.org/wiki/Foo_(bar)"',
      'href="https://bare.example.org/no-title"',
    ]);
    expect(html).not.toMatch(/<img|href="javascript|href="https:\/\/evil/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('writes nothing for a step without sources', () => {
    expect(exportRunMarkdown(run, [goodStep('r', 0)])).not.toContain('Sources');
  });
});

// An image in a title, a label or an error line: written into a link's label (a source's title) or a
// heading, it must stay text. marked drops a label's backslash escapes before reading it, so an escaped
// `!\[x\](url)` there rendered as a live image: a request to the attacker on opening the file.
describe('untrusted lines in the Markdown exports, read by marked', () => {
  const image = '![x](https://attacker.invalid/p.png)';
  const variants = [
    image,
    `a ${image}`,
    `\\${image}`,
    '![x][r] [r]: https://attacker.invalid/r.png',
    '<img src="https://attacker.invalid/h.png">',
    '[link](https://attacker.invalid/l)',
  ];
  const everywhere = (hostile: string) => {
    const base = goodRun('r', 1000);
    const run = goodRun('r', 1000, {
      question: hostile,
      mode: hostile as 'conductor',
      error: hostile,
      pool: [
        { ...base.pool[0]!, id: 'w1', label: hostile, model: hostile, webSearch: true },
        { ...base.pool[0]!, id: 'w2', label: `${hostile} 2`, model: hostile },
      ],
    });
    const step = goodStep('r', 0, {
      error: hostile,
      takeovers: [{ from: 'w2', to: 'w1', reason: hostile, at: 2 }],
      citations: [{ url: 'https://source.example/a', title: hostile }],
    });
    return { run, steps: [step] };
  };

  for (const hostile of variants) {
    it(`keeps ${JSON.stringify(hostile)} as text in a run's and a thread's report`, async () => {
      const { run, steps } = everywhere(hostile);
      const thread = { id: 't', schema: 1 as const, title: hostile, createdAt: 1, updatedAt: 2 };
      for (const md of [
        exportRunMarkdown(run, steps),
        exportThreadMarkdown(thread, [{ run: { ...run, threadId: 't', turn: 0 }, steps }]),
      ]) {
        const html = await marked.parse(md, { gfm: true });
        // Nothing that loads by itself, and the only link is the source's own.
        expect(html).not.toMatch(/<(img|script|iframe|video|audio|source|object|embed)\b|\ssrc=["']/i);
        expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual(['https://source.example/a']);
        expect(inertProblems(md)).toEqual([]);
      }
    });
  }
});
