import { describe, expect, it } from 'vitest';
import { detectFormat, importTaskSet } from '../../../../src/evaluation/importers/index.ts';
import { fixture } from './fixture.ts';

describe('choosing the importer', () => {
  it.each([
    ['humaneval.jsonl', 'humaneval'],
    ['mbpp.jsonl', 'mbpp'],
    ['gsm8k.jsonl', 'gsm8k'],
    ['math500.jsonl', 'math500'],
    ['mmlu-baton_test.csv', 'mmlu'],
    ['gpqa.csv', 'gpqa'],
    ['livecodebench.jsonl', 'livecodebench'],
  ])('recognises %s by its content, whatever the file is called', async (file, id) => {
    expect((await detectFormat(fixture(file), 'upload.txt')).id).toBe(id);
  });

  it("falls back to the file name when the first record says nothing, and to Baton's format last", async () => {
    expect((await detectFormat('not json\n', 'HumanEval.jsonl')).id).toBe('humaneval');
    expect((await detectFormat('{"id":"a","question":"q","answer":"x","kind":"exact"}\n')).id).toBe('baton');
    const imported = await importTaskSet('{broken\n', '');
    expect(imported.format.id).toBe('baton');
    expect(imported.errors[0]!.line).toBe(1);
  });

  it('reads a JSONL file that starts with a byte-order mark', async () => {
    const imported = await importTaskSet(`\uFEFF${fixture('gsm8k.jsonl')}`);
    expect(imported.format.id).toBe('gsm8k');
    expect(imported.errors).toEqual([]);
  });

  it('imports a whole file in one call', async () => {
    const imported = await importTaskSet(fixture('gsm8k.jsonl'), 'test.jsonl');
    expect(imported.format.label).toBe('GSM8K');
    expect(imported.tasks).toHaveLength(3);
  });
});
