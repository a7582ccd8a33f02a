import { type Channel, createChannel } from '../../shared/async-channel.ts';
import type { StepEvent } from '../../shared/conductor-api.ts';
import type { Plan, Step } from '../../shared/plan/index.ts';

/** What to do once the conductor's final plan is known. */
export type FeedOutcome =
  /** Every step went to the executor, streamed ones first: the run goes on. */
  | { kind: 'streamed'; streamed: number }
  /** The steps already sent are not the plan's first steps: drop that run and start one from the plan. */
  | { kind: 'restart'; reason: string };

function sameStep(a: Step, b: Step | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Feeds the executor the conductor's steps while the plan is being written, without review: each step
 * goes out the moment the conductor streams it (step 0 can run before step 2 is written), since the
 * conductor streams only steps that stand, checked against the pool and the steps before them. A
 * restart (a rejected attempt, then its repair or the fallback) keeps the steps it says stand and
 * streams the new attempt's steps after them.
 *
 * If the stream ever disagrees with itself (a restart that takes back steps already sent, as an older
 * conductor thread does, or a step that differs from the one sent at its index), nothing more is sent,
 * and `finish` asks for the run to start again from the final plan: the executor must never run a plan
 * the conductor did not write.
 */
export class PlanFeed {
  private readonly channel: Channel<Step> = createChannel<Step>();
  private readonly sent: Step[] = [];
  private broken: string | undefined;

  /** The steps, for the executor (`startRun({ plan: feed.steps })`). */
  get steps(): AsyncIterable<Step> {
    return this.channel;
  }

  /** How many steps went to the executor. */
  get sentCount(): number {
    return this.sent.length;
  }

  /** Why streaming stopped before the final plan, if it did. */
  get stopped(): string | undefined {
    return this.broken;
  }

  /** One event of the conductor's stream, in the order they arrive. */
  onEvent(event: StepEvent): void {
    if (this.broken || this.channel.closed) return;
    if (event.kind === 'restart') {
      const kept = event.kept;
      if (kept === undefined || kept < this.sent.length) {
        this.stop(
          `the conductor took back ${this.sent.length - (kept ?? 0)} of the ${this.sent.length} steps already started`,
        );
      } else if (kept > this.sent.length) {
        this.stop(`the conductor keeps ${kept} steps, but only ${this.sent.length} arrived`);
      }
      return;
    }
    if (event.index < this.sent.length) {
      // A step sent before, streamed again: fine if it is the same step.
      if (!sameStep(event.step, this.sent[event.index]))
        this.stop(`step ${event.index} changed after it started`);
      return;
    }
    if (event.index > this.sent.length) {
      this.stop(`step ${event.index} arrived before step ${this.sent.length}`);
      return;
    }
    this.sent.push(event.step);
    this.channel.push(event.step);
  }

  /** The conductor's final plan: sends the steps not streamed yet and ends the feed. */
  finish(plan: Plan): FeedOutcome {
    const prefix = this.sent.every((step, i) => sameStep(step, plan.steps[i]));
    if (this.broken || !prefix) {
      this.channel.close();
      return {
        kind: 'restart',
        reason: this.broken ?? 'the final plan does not begin with the steps already started',
      };
    }
    for (const step of plan.steps.slice(this.sent.length)) this.channel.push(step);
    const streamed = this.sent.length;
    this.channel.close();
    return { kind: 'streamed', streamed };
  }

  /** Planning failed or was cancelled: the executor gets no more steps. */
  cancel(): void {
    this.channel.close();
  }

  private stop(reason: string): void {
    this.broken = reason;
  }
}
