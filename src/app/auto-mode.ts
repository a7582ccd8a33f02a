/**
 * Auto mode's learned state in the app: the bandit (src/learning/bandit.ts) learned from the
 * outcomes the user marked, the "quality ↔ cost" slider, and the export/import/reset of what it learned.
 * The state follows the outcome store's changes one at a time (src/learning/learner.ts: a new outcome is one
 * update; a re-mark or a removal learns the outcomes again in one pass), on top of an imported base:
 * outcomes marked after the import are added to it, earlier ones are taken to be in it. Base, import time and slider are kept in localStorage; nothing of it is ever sent.
 */
import { signal } from '@preact/signals';
import { z } from 'zod';
import {
  type BanditState,
  banditStateSchema,
  type Candidate,
  choose,
  createBanditState,
  NoStrategyAvailable,
} from '../learning/bandit.ts';
import { createLearner } from '../learning/learner.ts';
import {
  type OutcomeChange,
  type OutcomeStore,
  type StrategyId,
  singleStrategy,
  singleWorkerOf,
} from '../learning/outcome.ts';
import { answersAlone, labelOf } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { parseJson, storedValue } from './local-store.ts';

const DEFAULT_SLIDER = 0.3;

const keptSchema = z.object({
  base: banditStateSchema,
  /** Epoch ms of the import: outcomes marked before it are in `base`. */
  since: z.number(),
  slider: z.number().min(0).max(1),
});
type Kept = z.infer<typeof keptSchema>;

const fresh = (): Kept => ({ base: createBanditState(), since: 0, slider: DEFAULT_SLIDER });
const kept = storedValue<Kept>('baton.learned', (raw) => {
  const parsed = keptSchema.safeParse(parseJson(raw));
  return parsed.success ? parsed.data : fresh();
});

/** The export file: the learned state and the slider, with a name that says what it is. */
const exportSchema = z.object({
  kind: z.literal('baton-learned-state'),
  slider: z.number().min(0).max(1),
  state: banditStateSchema,
});

/** "state.arms.conductor.good: must have 12 numbers" — the first problems of an import, by path. */
function problemsOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map(
      (i) => `${i.path.length ? i.path.join('.') : 'the file'}: ${i.message.replace(/^Invalid input: /, '')}`,
    )
    .join('; ');
}

export interface AutoChoice {
  strategy: StrategyId;
  reason: string;
}

export interface AutoModeServices {
  /** The outcome store, when the page has one (the memory's `outcomeStore()` of the page services). */
  outcomeStore?(): Promise<OutcomeStore>;
  /** Uniform [0, 1); Math.random by default. */
  random?: () => number;
}

export function createAutoMode(services: AutoModeServices) {
  const initial = kept.read();
  let base = initial.base;
  let since = initial.since;
  const learner = createLearner(base, since);
  const learned = signal<BanditState>(base);
  const slider = signal(initial.slider);
  const random = services.random ?? Math.random;

  const save = () => kept.write({ base, since, slider: slider.value });

  const apply = (change: OutcomeChange) => {
    if (change.kind === 'put') learner.put(change.outcome);
    else if (change.kind === 'remove') learner.remove(change.runId);
    else learner.replaceAll([]);
    learned.value = learner.state;
  };

  let watching: Promise<void> | undefined;
  /** Reads the outcomes and follows the store's changes; once, on first use. */
  function watch(): Promise<void> {
    watching ??= (async () => {
      if (!services.outcomeStore) return;
      const store = await services.outcomeStore();
      // Changes made while the list is read are applied after it, in order: none is lost.
      let early: OutcomeChange[] | undefined = [];
      store.subscribe((change) => (early ? early.push(change) : apply(change)));
      learner.replaceAll(await store.list());
      learned.value = learner.state;
      for (const change of early) apply(change);
      early = undefined;
    })();
    return watching;
  }

  /**
   * Picks a strategy for `question` over `pool` (its enabled workers): the conductor, the router, or one
   * worker directly. `keyless` are the workers that cannot send; without a conductor model neither the
   * conductor nor the router can plan.
   */
  async function pick(
    question: string,
    pool: readonly WorkerSpec[],
    keyless: ReadonlySet<string>,
    conductorLoaded: boolean,
  ): Promise<AutoChoice> {
    await watch();
    const labels = new Map(pool.map((w) => [w.id, labelOf(w)]));
    // The code sandbox answers a question with nothing to run: it is never the one worker for a question.
    const answering = pool.filter((w) => answersAlone(w.id));
    const singles = answering.map((w) => singleStrategy(w.id));
    const arms: StrategyId[] = ['conductor', 'router', ...singles];
    const candidates: Candidate[] = arms.map((arm) => {
      const n = learner.neighbours(question, arm);
      return n ? { arm, neighbours: n } : { arm };
    });
    const anySends = pool.some((w) => !keyless.has(w.id));
    const sending = answering.filter((w) => !keyless.has(w.id));
    if (sending.length === 0 && !(conductorLoaded && anySends))
      throw new NoStrategyAvailable(nothingAnswers(answering, conductorLoaded));
    const choice = choose(learned.value, question, candidates, {
      slider: slider.value,
      random,
      available: (arm) => {
        const worker = singleWorkerOf(arm);
        return worker !== undefined
          ? labels.has(worker) && !keyless.has(worker)
          : conductorLoaded && anySends;
      },
      labelOf: (arm) => {
        const worker = singleWorkerOf(arm);
        if (worker !== undefined) return labels.get(worker) ?? worker;
        return arm === 'router' ? 'the router' : 'the conductor';
      },
    });
    return { strategy: choice.arm, reason: choice.reason };
  }

  function setSlider(value: number): void {
    slider.value = Math.min(1, Math.max(0, value));
    save();
  }

  function exportText(): string {
    return `${JSON.stringify({ kind: 'baton-learned-state', slider: slider.value, state: learned.value }, null, 2)}\n`;
  }

  /** Replaces what was learned with an export's; throws a clear error (and changes nothing) on a bad file. */
  function importText(text: string, now: number = Date.now()): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`This file is not JSON (${(error as Error).message}); nothing was imported.`);
    }
    const parsed = exportSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `This is not a Baton learned-state export: ${problemsOf(parsed.error)}. Nothing was imported.`,
      );
    base = parsed.data.state;
    since = now;
    slider.value = parsed.data.slider;
    save();
    learner.setBase(base, since);
    learned.value = learner.state;
  }

  /** Forgets everything learned: the base, and the outcomes it was learned from. */
  async function reset(): Promise<void> {
    base = createBanditState();
    since = 0;
    save();
    learner.replaceAll([]);
    learner.setBase(base, since);
    learned.value = learner.state;
    if (services.outcomeStore) await (await services.outcomeStore()).clear();
  }

  return { learned, slider, watch, pick, setSlider, exportText, importText, reset };
}

export type AutoMode = ReturnType<typeof createAutoMode>;

/**
 * Why auto mode has nothing to answer with, and where to fix it, in the user's names: no worker that
 * answers, or none of them with a key, and no conductor model to plan with.
 */
function nothingAnswers(answering: readonly WorkerSpec[], conductorLoaded: boolean): string {
  const names = new Intl.ListFormat('en', { type: 'conjunction' }).format(answering.map(labelOf));
  const workers =
    answering.length === 0
      ? 'Your pool has no worker that answers questions: add one in Settings.'
      : `${names} ${answering.length === 1 ? 'has' : 'have'} no API key saved: add one in Settings.`;
  return conductorLoaded
    ? `nothing can send. ${workers}`
    : `nothing can answer yet. ${workers} No conductor model is loaded to plan with: load one on Start.`;
}
