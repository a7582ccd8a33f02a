import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import {
  exportFilename,
  exportRun,
  exportRunJson,
  exportRunMarkdown,
  parseRunImport,
} from '../../../src/app/export.ts';
import type { RunRecord, StepRecord } from '../../../src/records/runs-db.ts';
import { HOSTILE_ANSWER } from '../../fixtures/hostile-answer.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';
import { badRuns, badSteps } from '../records/damaged-records.ts';

const SECRET = 'sk-test-1234567890abcdef';

function fixture(): { run: RunRecord; steps: StepRecord[] } {
  const run: RunRecord = {
    id: 'run-1',
    question: 'What is 2+2?',
    mode: 'conductor',
    pool: [
      {
        id: 'w1',
        label: 'Echo',
        strengths: 'repeats',
        providerId: 'custom',
        // A key pasted into a URL by mistake must not survive an export.
        baseURL: `https://user:${SECRET}@example.test/v1?key=${SECRET}#frag`,
        model: 'echo',
        maxConcurrency: 2,
        enabled: true,
        ...({ apiKey: SECRET } as object),
      },
    ],
    plan: { thought: 'one step', steps: [{ worker: 'w1', task: 'Answer: ```code```', sees: [] }] },
    planComplete: true,
    includeQuestion: true,
    status: 'done',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_001_000,
    totals: {
      promptTokens: 10,
      completionTokens: 2,
      cost: 0.0001,
      steps: 1,
      done: 1,
      failed: 0,
      cancelled: 0,
    },
    answer: '4',
  };
  const steps: StepRecord[] = [
    {
      runId: 'run-1',
      index: 0,
      worker: 'w1',
      task: 'Answer: ```code```',
      sees: [],
      depth: 0,
      state: 'done',
      text: '4',
      usage: { promptTokens: 10, completionTokens: 2 },
      cost: 0.0001,
      timings: { queuedAt: 1, startedAt: 2, endedAt: 502 },
      attempts: 1,
    },
  ];
  return { run, steps };
}

describe('run export and import', () => {
  it('marks estimated tokens and cost with ≈ and names the tokenizer, in Markdown and JSON', () => {
    const { run, steps } = fixture();
    run.totals = { ...run.totals, estimated: true, estimator: 'o200k' };
    steps[0]!.usage = { promptTokens: 10, completionTokens: 2, estimated: true, estimator: 'o200k' };
    const md = exportRunMarkdown(run, steps);
    expect(md).toContain('- Tokens: ≈10 in, ≈2 out');
    expect(md).toContain('- Cost: ≈$0.00010');
    expect(md).toContain('estimated with the o200k tokenizer: the provider sent no usage');
    const json = JSON.parse(exportRunJson(run, steps)) as { run: RunRecord; steps: StepRecord[] };
    expect(json.run.totals).toMatchObject({ estimated: true, estimator: 'o200k' });
    expect(json.steps[0]!.usage).toMatchObject({ estimated: true, estimator: 'o200k' });
    // Counts the provider sent carry no mark.
    const plain = exportRunMarkdown(fixture().run, fixture().steps);
    expect(plain).toContain('- Tokens: 10 in, 2 out');
    expect(plain).not.toContain('≈');
  });

  it("writes a run's status in the words History and the run view use: a stopped run is stopped", () => {
    const { run, steps } = fixture();
    expect(exportRunMarkdown(run, steps)).toContain('- Status: done\n');
    run.status = 'cancelled';
    expect(exportRunMarkdown(run, steps)).toContain('- Status: stopped\n');
    run.status = 'partial';
    expect(exportRunMarkdown(run, steps)).toContain('- Status: done, some steps failed\n');
  });

  it('never exports a key, even one left in a worker or its URL', () => {
    const { run, steps } = fixture();
    const json = exportRunJson(run, steps);
    expect(json).not.toContain(SECRET);
    expect(exportRun(run, steps).run.pool[0]!.baseURL).toBe('https://example.test/v1');
    expect(exportRunMarkdown(run, steps)).not.toContain(SECRET);
  });

  it('writes a readable Markdown report with the answer, steps and a fence longer than any in the task', () => {
    const { run, steps } = fixture();
    const md = exportRunMarkdown(run, steps);
    expect(md).toMatch(/^# What is 2\+2\?/);
    expect(md).toContain('## Answer\n\n4\n');
    expect(md).toContain('### Step 0: Echo (echo)');
    expect(md).toContain('````text\nAnswer: ```code```\n````');
    expect(md).toContain('- Time: 500 ms');
  });

  it('says what each step sees as its card on the page does: "all" on the first step is nothing', () => {
    const { run } = fixture();
    const steps = [
      goodStep(run.id, 0, { sees: 'all' }),
      goodStep(run.id, 1, { sees: [] }),
      goodStep(run.id, 2, { sees: [0, 1] }),
      goodStep(run.id, 3, { sees: 'all' }),
    ];
    const lines = exportRunMarkdown(run, steps)
      .split('\n')
      .filter((line) => line.startsWith('- Sees'));
    expect(lines).toEqual([
      '- Sees nothing (first step)',
      '- Sees nothing',
      '- Sees step 0, step 1',
      '- Sees all earlier steps',
    ]);
  });

  it('re-imports its own export under a new id', () => {
    const { run, steps } = fixture();
    const result = parseRunImport(exportRunJson(run, steps), { newId: 'new-id' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data.run.id).toBe('new-id');
    expect(result.data.steps[0]!.runId).toBe('new-id');
    expect(result.data.run.answer).toBe('4');
    expect(result.data.run.plan.steps).toHaveLength(1);
  });

  it('rejects files that are not valid run exports, with a reason', () => {
    expect(parseRunImport('not json')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
    expect(parseRunImport('{"a":1}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('baton-run'),
    });
    const { run, steps } = fixture();
    const bad = JSON.parse(exportRunJson(run, steps));
    bad.run.plan.steps[0].worker = 'ghost';
    expect(parseRunImport(JSON.stringify(bad))).toMatchObject({
      ok: false,
      error: expect.stringContaining('ghost'),
    });
    const badStep = JSON.parse(exportRunJson(run, steps));
    badStep.steps[0].state = 'exploded';
    expect(parseRunImport(JSON.stringify(badStep))).toMatchObject({
      ok: false,
      error: expect.stringContaining('Step 0 of the export is malformed: state'),
    });
  });

  it('stores an imported unfinished run as cancelled (it cannot be resumed from a file)', () => {
    const { run, steps } = fixture();
    const json = exportRunJson({ ...run, status: 'running' }, [{ ...steps[0]!, state: 'running' }]);
    const result = parseRunImport(json);
    expect(result.ok && result.data.run.status).toBe('cancelled');
    expect(result.ok && result.data.steps[0]!.state).toBe('cancelled');
  });

  it('names files after the question', () => {
    expect(exportFilename({ id: 'abcdef123', question: 'What is 2+2?' }, 'json')).toBe(
      'what-is-2-2-abcdef.json',
    );
  });
});

/** Every element and attribute in `html` that is not plain formatting or an http(s) link. */
function liveMarkup(html: string): string[] {
  const plain = new Set([
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'ul',
    'ol',
    'li',
    'strong',
    'em',
    'del',
    'pre',
    'code',
    'blockquote',
    'br',
    'hr',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ]);
  const live: string[] = [];
  for (const [tag, name = '', attributes = ''] of html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const lower = name.toLowerCase();
    const attrs = [...attributes.matchAll(/([^\s=]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/g)];
    const ok =
      (plain.has(lower) &&
        attrs.every(
          ([, n, v]) =>
            (n === 'class' && /^"language-[\w+#.-]+"$/.test(v ?? '')) ||
            (n === 'align' && /^"(left|right|center)"$/.test(v ?? '')) ||
            (n === 'start' && /^"\d+"$/.test(v ?? '')),
        )) ||
      (lower === 'a' && attrs.every(([, n, v]) => n === 'href' && /^"(https?:|mailto:)/.test(v ?? '')));
    if (!ok) live.push(tag);
  }
  return live;
}

/**
 * What a person reading the exported file as text would take for live markup, outside code blocks and
 * code spans: an HTML tag, an image, an autolink or link to anything but http(s) or mail.
 */
function liveInText(markdown: string): string[] {
  const prose = markdown
    .replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1\2[`~]* *$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
  return [
    // A bracket escaped with a backslash opens or closes nothing, so `\\](` is text.
    ...prose.matchAll(
      /<[a-zA-Z/!?][^>]*>?|(?<!\\)!(?<!\\)\[[^\]]*\]\(|(?<!\\)\]\(\s*<?\s*(?!https?:|mailto:)[a-z]+:|<(?!https?:|mailto:)[a-z][\w+.-]*:[^>\s]*>/gi,
    ),
  ].map((m) => m[0]);
}

/** More ways to make a link or image live than the shared corpus has: data: URLs, references, autolinks. */
const MORE_HOSTILE = [
  '[a data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![a data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '<javascript:alert(1)>',
  '[a reference][evil] and [another][data]',
  '[evil]: javascript:alert(2)',
  '[data]: data:text/html,<script>alert(3)</script>',
  '| cell | <img src=x onerror=alert(4)> |\n|---|---|\n| [x](javascript:alert(5)) | ![y](http://attacker.test/t.png) |',
  '- <b onclick="alert(6)">item</b>\n\n  > <script>alert(7)</script>',
].join('\n\n');

describe('Markdown export of untrusted text', () => {
  function hostileRun(answer = HOSTILE_ANSWER): { run: RunRecord; steps: StepRecord[] } {
    const { run, steps } = fixture();
    const step = { ...steps[0]!, text: answer, error: answer.slice(0, 200) };
    return {
      run: {
        ...run,
        question: `${HOSTILE_ANSWER.split('\n')[2]}\n${HOSTILE_ANSWER}`,
        plan: { thought: HOSTILE_ANSWER, steps: run.plan.steps },
        pool: [{ ...run.pool[0]!, label: '<img src=x onerror=alert(1)>', model: '[x](javascript:alert(1))' }],
        answer,
        error: '<script>alert(1)</script> http://attacker.test/e',
      },
      steps: [step],
    };
  }

  for (const [name, answer] of [
    ['the shared hostile corpus', HOSTILE_ANSWER],
    ['data: links, references, autolinks, tables and lists', MORE_HOSTILE],
  ] as const) {
    it(`renders inert in a Markdown viewer that allows HTML, and reads inert as text: ${name}`, async () => {
      const { run, steps } = hostileRun(answer);
      const md = exportRunMarkdown(run, steps);
      const html = await marked.parse(md, { gfm: true });
      expect(liveMarkup(html)).toEqual([]);
      expect(liveInText(md)).toEqual([]);
      expect(html).not.toMatch(/(href|src)="\s*(javascript|data):/i);
    });
  }

  it('keeps the corpus readable as text, the image as a link and the plain link live', async () => {
    const { run, steps } = hostileRun();
    const html = await marked.parse(exportRunMarkdown(run, steps), { gfm: true });
    expect(html).toContain('&lt;script&gt;window.__pwned = &quot;script&quot;');
    expect(html).toContain('onerror=');
    expect(html).toContain('<a href="http://attacker.test/markdown-image.png">image: tracker</a>');
    expect(html).toContain('<a href="http://attacker.test/ok">a plain https link is fine</a>');
    // A javascript: link keeps its words and loses its target.
    expect(html).toContain('<p>click me</p>');
  });

  it("keeps the answer's headings, lists, tables and code, headings under the report's own", async () => {
    const { run, steps } = fixture();
    const answer = [
      '# Result',
      'Some **bold** and `code`.',
      '- first\n- second\n  1. nested',
      '| Name | Value |\n|:--|--:|\n| a | 1 |',
      '```python\nprint("hi")\n```',
    ].join('\n\n');
    const md = exportRunMarkdown({ ...run, answer }, [{ ...steps[0]!, text: answer }]);
    const html = await marked.parse(md, { gfm: true });
    expect(liveMarkup(html)).toEqual([]);
    // Under "## Answer" the answer's # is a ###; under "### Step 0" a ####.
    expect(html).toContain('<h3>Result</h3>');
    expect(html).toContain('<h4>Result</h4>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toMatch(/<ul>\s*<li>first<\/li>\s*<li>second<ol>\s*<li>nested<\/li>/);
    expect(html).toMatch(/<table>[\s\S]*<th align="left">Name<\/th>[\s\S]*<td align="right">1<\/td>/);
    expect(html).toContain('<pre><code class="language-python">print(&quot;hi&quot;)');
  });

  it('fences an answer with a fence longer than any backtick or tilde run in it', async () => {
    const { run, steps } = fixture();
    const sneaky = 'before\n`````\n<img src=x onerror=alert(1)>\n~~~~~~~\n<b>after</b>';
    const md = exportRunMarkdown({ ...run, answer: sneaky }, [{ ...steps[0]!, text: sneaky }]);
    // The unclosed fence runs to the answer's end: one code block, fenced longer than anything in it.
    expect(md).toContain('````````\n<img src=x onerror=alert(1)>\n~~~~~~~\n<b>after</b>\n````````');
    expect(liveMarkup(await marked.parse(md))).toEqual([]);
  });
});

describe('importing damaged runs', () => {
  function file(run: unknown, steps: unknown[]): string {
    return JSON.stringify({ format: 'baton-run', version: 1, exportedAt: '', run, steps });
  }

  for (const { record, names } of badRuns(1000)) {
    it(`rejects the run "${(record as { id: string }).id}", naming ${names}`, () => {
      const result = parseRunImport(file(record, []));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toContain(`The export's run is malformed: ${names}`);
    });
  }

  for (const { step, names } of badSteps('r')) {
    it(`rejects a step whose ${names} is malformed, naming the field`, () => {
      const result = parseRunImport(file(goodRun('r', 1000), [step]));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toContain(`Step 0 of the export is malformed: ${names}`);
    });
  }

  it('keeps the run id of the file (so a second import of the same run can be recognised)', () => {
    const result = parseRunImport(file(goodRun('r', 1000), [goodStep('r')]));
    expect(result.ok && result.data.run.id).toBe('r');
    expect(result.ok && result.data.steps[0]!.runId).toBe('r');
  });
});
