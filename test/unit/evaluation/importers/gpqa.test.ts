import { describe, expect, it } from 'vitest';
import { gpqa, gpqaChoices } from '../../../../src/evaluation/importers/gpqa.ts';
import { fixture } from './fixture.ts';

describe('GPQA importer', () => {
  it('reads the published CSV by column name, the correct answer shuffled among the four', async () => {
    const { tasks, errors } = await gpqa.parse(fixture('gpqa.csv'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => t.id)).toEqual(['recBaton0001', 'recBaton0002']);
    for (const task of tasks) {
      expect(task.kind).toBe('choice');
      expect(task.choices).toHaveLength(4);
    }
    const bond = tasks[1]!;
    expect(bond.choices!['ABCD'.indexOf(bond.answer)]).toBe('Peptide bond, a C-N amide');
    expect(new Set(bond.choices)).toEqual(
      new Set(['Peptide bond, a C-N amide', 'Hydrogen bond', 'Ionic bond', 'Disulfide bond']),
    );
  });

  it('shuffles each item the same way every time, seeded by its own id, and not always to one place', () => {
    const item = (id: string) => ({
      id,
      correct: 'right',
      incorrect: ['x', 'y', 'z'] as [string, string, string],
    });
    expect(gpqaChoices(item('rec1'))).toEqual(gpqaChoices(item('rec1')));
    const places = new Set(Array.from({ length: 40 }, (_, i) => gpqaChoices(item(`rec${i}`)).answer));
    expect(places).toEqual(new Set(['A', 'B', 'C', 'D']));
    expect(gpqaChoices(item('rec1'), 1)).not.toEqual(gpqaChoices(item('rec1'), 2));
  });

  it('reports an empty answer column and a row with too few fields', async () => {
    const { tasks, errors } = await gpqa.parse(fixture('gpqa-bad.csv'));
    expect(tasks.map((t) => t.id)).toEqual(['recBaton0003']);
    expect(errors).toEqual([
      { line: 3, message: 'Incorrect Answer 3: must not be empty' },
      { line: 4, message: 'has 3 fields, the header has 6' },
    ]);
  });

  it('reads the same columns as JSONL', async () => {
    const text = JSON.stringify({
      Question: 'Unit of force?',
      'Correct Answer': 'Newton',
      'Incorrect Answer 1': 'Joule',
      'Incorrect Answer 2': 'Watt',
      'Incorrect Answer 3': 'Pascal',
    });
    const { tasks } = await gpqa.parse(text);
    expect(tasks[0]!.id).toBe('gpqa/1');
    expect(tasks[0]!.choices!['ABCD'.indexOf(tasks[0]!.answer)]).toBe('Newton');
  });
});
