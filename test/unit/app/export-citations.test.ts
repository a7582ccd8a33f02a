import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { exportRunJson, exportRunMarkdown, parseRunImport } from '../../../src/app/export.ts';
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
