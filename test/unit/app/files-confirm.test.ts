import { describe, expect, it } from 'vitest';
import { createRunFiles } from '../../../src/app/run-files.ts';
import {
  createFilesConfirm,
  fileDestinations,
  type KnownProviders,
  needsConsent,
} from '../../../src/app/runs/files-confirm.ts';
import type { RunCore } from '../../../src/app/runs/run-core.ts';
import type { Attachment } from '../../../src/attachments/types.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';

const worker = (id: string, providerId: string, baseURL: string, label = id): WorkerSpec => ({
  id,
  label,
  providerId,
  baseURL,
  model: 'm',
  strengths: '',
  maxConcurrency: 1,
  enabled: true,
});
const pool = [
  worker('gpt', 'openai', 'https://api.openai.com/v1', 'Writer'),
  worker('claude', 'anthropic', 'https://api.anthropic.com/v1', 'Critic'),
  worker('proxy', 'custom', 'http://127.0.0.1:4000/v1', 'Proxy'),
  worker('llama', 'ollama', 'http://127.0.0.1:11434/v1', 'Llama'),
  worker('run', 'custom', '', 'Code sandbox'),
];
const names = ['notes.txt', 'data.csv'];
const step = (w: string, files?: Step['files']): Step => ({
  worker: w,
  task: 't',
  sees: [],
  ...(files ? { files } : {}),
});
const nothingKnown: KnownProviders = { sentTo: [], remembered: [] };

describe('where a plan sends files', () => {
  it('names each provider once, with its files and workers; local servers and the device are not asked about', () => {
    const steps = [
      step('gpt', [0]),
      step('claude', 'all'),
      step('gpt', [1]),
      step('llama', 'all'),
      step('run', [0]),
    ];
    expect(fileDestinations([...steps, step('proxy', [1])], pool, names)).toEqual([
      { key: 'openai', name: 'OpenAI', files: ['notes.txt', 'data.csv'], workers: ['Writer'] },
      { key: 'anthropic', name: 'Anthropic', files: ['notes.txt', 'data.csv'], workers: ['Critic'] },
      // A custom endpoint on this machine may be a proxy to anywhere: it is asked about.
      { key: 'http://127.0.0.1:4000', name: '127.0.0.1:4000', files: ['data.csv'], workers: ['Proxy'] },
    ]);
    expect(fileDestinations([step('gpt'), step('claude', [])], pool, names)).toEqual([]);
  });

  it('asks for a provider not sent files before, or for more than one; not for one remembered', () => {
    const openai = fileDestinations([step('gpt', [0])], pool, names);
    const both = fileDestinations([step('gpt', [0]), step('claude', [0])], pool, names);
    expect(needsConsent([], nothingKnown)).toBe(false);
    expect(needsConsent(openai, nothingKnown)).toBe(true);
    expect(needsConsent(openai, { sentTo: ['openai'], remembered: [] })).toBe(false);
    expect(needsConsent(both, { sentTo: ['openai', 'anthropic'], remembered: [] })).toBe(true);
    expect(needsConsent(both, { sentTo: [], remembered: ['openai'] })).toBe(true);
    expect(needsConsent(both, { sentTo: [], remembered: ['openai', 'anthropic'] })).toBe(false);
  });
});

describe('the files confirm on streamed steps', () => {
  function setUp(known: KnownProviders = nothingKnown) {
    const runFiles = createRunFiles();
    runFiles.set(
      'r',
      names.map((name) => ({ name }) as Attachment),
    );
    let cancelled = 0;
    const core = {
      runFiles,
      declined: new Map<string, string>(),
      handle: { runId: 'r', cancel: () => cancelled++ },
    } as unknown as RunCore;
    let stored = known;
    const confirm = createFilesConfirm(core, { read: () => stored, write: (v) => (stored = v) });
    return { core, confirm, stored: () => stored, cancelled: () => cancelled };
  }

  async function* stream(steps: Step[]): AsyncIterable<Step> {
    for (const s of steps) yield s;
  }

  it('holds a step with a file until the user agrees, remembers the provider, and asks no more for it', async () => {
    const { confirm, stored } = setUp();
    const out: Step[] = [];
    const going = (async () => {
      for await (const s of confirm.withFileConsent(
        stream([step('gpt'), step('gpt', [0]), step('gpt', [1])]),
        'r',
        pool,
      ))
        out.push(s);
    })();
    await new Promise((r) => setTimeout(r, 0));
    // The step without files went on; the one with a file waits, and says where it would go.
    expect(out).toEqual([step('gpt')]);
    expect(confirm.filesConfirm.value?.destinations.map((d) => [d.name, d.files])).toEqual([
      ['OpenAI', ['notes.txt']],
    ]);
    confirm.confirmFiles(true, true);
    await going;
    expect(out).toHaveLength(3);
    expect(stored()).toEqual({ sentTo: ['openai'], remembered: ['openai'] });
  });

  it('declined: the step with the file and the rest are never sent, and the run stops saying why', async () => {
    const { core, confirm, stored, cancelled } = setUp();
    const out: Step[] = [];
    const going = (async () => {
      for await (const s of confirm.withFileConsent(
        stream([step('gpt'), step('claude', 'all'), step('gpt')]),
        'r',
        pool,
      ))
        out.push(s);
    })();
    await new Promise((r) => setTimeout(r, 0));
    confirm.confirmFiles(false);
    await going;
    expect(out).toEqual([step('gpt')]);
    expect(cancelled()).toBe(1);
    expect(core.declined.get('r')).toBe(
      'Stopped before sending notes.txt, data.csv to Anthropic: you chose not to send them. Steps done are kept.',
    );
    expect(stored()).toEqual(nothingKnown);
  });
});
