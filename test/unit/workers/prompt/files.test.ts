import { describe, expect, it } from 'vitest';
import { buildPlanMessages, type PromptWorker } from '../../../../workers/prompt/prompt.ts';

const pool: PromptWorker[] = [
  { id: 'w1', label: 'Writer', strengths: 'prose' },
  { id: 'w2', label: 'Looker', strengths: 'images', vision: true },
];
const input = {
  question: 'What does the chart show?',
  pool,
  mode: 'conductor' as const,
  maxSteps: 3,
  maxDepth: 1,
};

describe("the conductor's prompt with attached files", () => {
  it('lists each file after the question (name, kind, size, a short extract), and keeps the prefix as it was', () => {
    const plain = buildPlanMessages(input);
    const long = `id,amount\n${'1,2\n'.repeat(5000)}`;
    const messages = buildPlanMessages({
      ...input,
      attachments: [
        { name: 'sales.csv', kind: 'csv', size: 20_010, extract: long, long: true },
        { name: 'chart.png', kind: 'image', size: 2048, width: 800, height: 600 },
      ],
    });
    // Everything before the question is the same: the kept prefix does not change with files.
    expect(messages.slice(0, -1)).toEqual(plain.slice(0, -1));
    const last = messages.at(-1)?.content ?? '';
    expect(last.startsWith('What does the chart show?\n\nAttached files.')).toBe(true);
    expect(last).toContain('0: <data>"sales.csv"</data> (csv, 20 KB, long). Starts: <data>"id,amount\\n1,2');
    // Whole or passages, with one example of each, only here: a question without files prefills none of it.
    expect(last).toContain(
      'A number sends the whole file; {"file": n, "find": "words"} only the passages that match (best for a long file).\n' +
        'E.g. "Summarise this.": "files": [0]\n' +
        'E.g. "What does clause 7 say?": "files": [{"file":0,"find":"clause 7"}]',
    );
    expect(plain.map((m) => m.content).join('\n')).not.toContain('"find"');
    expect(last).toContain('1: <data>"chart.png"</data> (image, 800x600, 2 KB).');
    expect(last).toContain('Only these workers take images: w2.');
    // Never the whole file, whatever the page sent.
    expect(last.length).toBeLessThan(1300);
  });

  it('tells the router its one step gets every file', () => {
    const messages = buildPlanMessages({
      ...input,
      mode: 'router',
      attachments: [{ name: 'a.txt', kind: 'text', size: 3, extract: 'abc' }],
    });
    expect(messages.at(-1)?.content).toContain('the step gets them all: "files": "all"');
  });
});
