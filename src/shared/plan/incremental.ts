import { parseJson } from './json-text.ts';
import { DUPLICATE_STEPS_MESSAGE, type ParseOptions, type ParseResult, parsePlan } from './parse.ts';
import { DEFAULT_MAX_STEPS, type Step } from './schema.ts';
import { type PlanIssue, validateStep } from './validate.ts';

/**
 * What the incremental parser emits, the moment a step's JSON object closes: the step, valid on its own,
 * or the reason it is not (after which nothing more is emitted; see IncrementalPlanParser).
 */
export type ParsedStepEvent =
  | { type: 'step'; index: number; step: Step; error?: undefined }
  | { type: 'error'; index: number; error: PlanIssue; issues: PlanIssue[]; step?: undefined };

interface Frame {
  kind: 'object' | 'array';
  /** Objects: the key whose value comes next (after its colon), else undefined. */
  key?: string;
  /** Objects: a key (not a value) is expected next. */
  expectKey: boolean;
  /** Arrays: this is the plan's "steps" list. */
  isSteps: boolean;
  /** This frame and every frame around it are objects: where parsePlan looks for a "steps" key. */
  objectPath: boolean;
}

/** parsePlan looks for "steps" in the object and in objects nested up to this many levels below it. */
const PLAN_SEARCH_DEPTH = 5;

/** Where the plan's own "steps" list is: not seen yet, being read, or closed (no other list may follow). */
type StepsState = 'before' | 'open' | 'closed';

type StringRole = 'key' | 'thought' | 'other';

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Parses a plan while the conductor is still writing it. Each `push(chunk)` (chunks of any size, split
 * anywhere, even inside a string or an escape) scans only the new characters, tracking nesting, strings
 * and escapes, and returns one event per step whose object closed in that chunk: the step itself, checked
 * alone with `validateStep` (possible because `sees` only points backwards), or an error.
 *
 * The plan is the first top-level JSON object holding a "steps" array (free text or a ```json fence
 * before it is skipped; an object without "steps" is passed over). Only that object's own "steps" array,
 * once, streams steps: a "steps" nested deeper (an example, a wrapped plan) is left to `end()`, since
 * `parsePlan` prefers the object's own "steps" to any nested one, and a second "steps" key in the same
 * object is an error (JSON.parse would keep the second, after the first had been dispatched).
 *
 * After the first error event no more events are emitted: the executor should stop. `end()` parses the
 * whole text with `parsePlan` and is authoritative: it reports faults the stream cannot see (too few
 * steps, a plan cut off, the paper's list format, which is only parsed there), and its steps start with
 * the ones emitted (the caller starts any it has beyond `emitted`).
 */
export class IncrementalPlanParser {
  private readonly options: ParseOptions;
  private readonly chunks: string[] = [];
  private readonly stack: Frame[] = [];
  private inString = false;
  private role: StringRole = 'other';
  /** 0: none; 1: after a backslash; 2..5: reading the hex digits of \u. */
  private escape = 0;
  private hex = '';
  private keyText = '';
  private thoughtText = '';
  private thoughtState: 'none' | 'streaming' | 'done' = 'none';
  private stepsState: StepsState = 'before';
  /** Index in `stack` of the "steps" array while it is open, else -1. */
  private stepsFrame = -1;
  /** The current top-level object has a "steps" key where parsePlan would find it. */
  private planKeySeen = false;
  /** A second "steps" key in the plan's object was read: reported by the next `push` loop turn. */
  private duplicateSteps = false;
  /** Index in `stack` of the step object being read, or -1. */
  private stepFrame = -1;
  private captured: string[] = [];
  private captureFrom = -1;
  private count = 0;
  private stopped = false;
  private closed = false;
  private ended: ParseResult | undefined;

  constructor(options: ParseOptions) {
    this.options = options;
  }

  /** The text of "thought" so far, unescaped (for the UI while the conductor writes). */
  get thought(): string {
    return this.thoughtText;
  }

  /** True once the "thought" string has closed. */
  get thoughtComplete(): boolean {
    return this.thoughtState === 'done';
  }

  /** How many step events (valid steps) were emitted. */
  get emitted(): number {
    return this.stopped ? this.count - 1 : this.count;
  }

  /** True after an error event: nothing more will be emitted. */
  get failed(): boolean {
    return this.stopped;
  }

  /** True once the plan's object has closed: later text is ignored. */
  get complete(): boolean {
    return this.closed;
  }

  /** Everything pushed so far. */
  get text(): string {
    return this.chunks.join('');
  }

  push(chunk: string): ParsedStepEvent[] {
    if (this.ended) throw new Error('IncrementalPlanParser: push after end');
    this.chunks.push(chunk);
    const events: ParsedStepEvent[] = [];
    if (this.closed || chunk.length === 0) return events;
    if (this.stepFrame >= 0) this.captureFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        this.stringChar(c);
        if (this.duplicateSteps) {
          this.duplicateSteps = false;
          const event = this.failDuplicate();
          if (event) events.push(event);
        }
        continue;
      }
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        // Outside any object: prose, a fence, whitespace. Only an opening brace matters.
        if (c === '{') {
          this.stack.push({ kind: 'object', expectKey: true, isSteps: false, objectPath: true });
        }
        continue;
      }
      switch (c) {
        case '"':
          this.inString = true;
          this.escape = 0;
          if (top.kind === 'object' && top.expectKey) {
            this.role = 'key';
            this.keyText = '';
          } else if (
            top.kind === 'object' &&
            top.key === 'thought' &&
            this.stack.length === 1 &&
            this.thoughtState === 'none' &&
            this.stepsState !== 'open'
          ) {
            this.role = 'thought';
            this.thoughtState = 'streaming';
          } else {
            this.role = 'other';
          }
          break;
        case '{':
          this.stack.push({
            kind: 'object',
            expectKey: true,
            isSteps: false,
            objectPath: top.kind === 'object' && top.objectPath,
          });
          if (top.isSteps && this.stepFrame < 0) {
            this.stepFrame = this.stack.length - 1;
            this.captured = [];
            this.captureFrom = i;
          }
          break;
        case '[': {
          // Only the plan object's own "steps" (the root, depth 1), and only the first such list.
          const isSteps =
            this.stepsState === 'before' &&
            this.stack.length === 1 &&
            top.kind === 'object' &&
            top.key === 'steps';
          this.stack.push({ kind: 'array', expectKey: false, isSteps, objectPath: false });
          if (isSteps) {
            this.stepsFrame = this.stack.length - 1;
            this.stepsState = 'open';
          }
          break;
        }
        case '}':
        case ']': {
          this.stack.pop();
          const depth = this.stack.length;
          if (depth === this.stepFrame) {
            this.captured.push(chunk.slice(this.captureFrom, i + 1));
            this.stepFrame = -1;
            this.captureFrom = -1;
            const event = this.finishStep(this.captured.join(''));
            this.captured = [];
            if (event) events.push(event);
          }
          if (depth === this.stepsFrame) {
            this.stepsFrame = -1;
            this.stepsState = 'closed';
          }
          if (depth === 0) {
            // The object is the plan if parsePlan would take it: it has "steps" of its own or in an
            // object nested in it. Nothing after it may stream, even if its "steps" was not a list.
            if (this.stepsState !== 'before' || this.planKeySeen) {
              this.closed = true;
              return events;
            }
            // An object without "steps" (prose such as "{x}"): look for the next one.
            this.thoughtText = '';
            this.thoughtState = 'none';
          }
          break;
        }
        case ':':
          if (top.kind === 'object') top.expectKey = false;
          break;
        case ',':
          if (top.kind === 'object') {
            top.expectKey = true;
            top.key = undefined;
          }
          break;
      }
    }
    if (this.stepFrame >= 0) this.captured.push(chunk.slice(this.captureFrom));
    return events;
  }

  /** Parses everything pushed, as `parsePlan` would: the plan, or every fault found. */
  end(): ParseResult {
    this.ended ??= parsePlan(this.chunks.join(''), this.options);
    return this.ended;
  }

  private stringChar(c: string): void {
    if (this.escape === 0) {
      if (c === '"') {
        this.inString = false;
        if (this.role === 'key') this.endKey();
        else if (this.role === 'thought') this.thoughtState = 'done';
        return;
      }
      if (c === '\\') this.escape = 1;
      else if (this.role === 'thought') this.thoughtText += c;
      if (this.role === 'key') this.keyText += c;
      return;
    }
    if (this.role === 'key') this.keyText += c;
    if (this.escape === 1) {
      if (c === 'u') {
        this.escape = 2;
        this.hex = '';
        return;
      }
      this.escape = 0;
      if (this.role === 'thought') this.thoughtText += ESCAPES[c] ?? c;
      return;
    }
    // \uXXXX: UTF-16 code units; a surrogate pair arrives as two escapes and joins in the string.
    this.hex += c;
    if (this.hex.length < 4) return;
    this.escape = 0;
    const unit = Number.parseInt(this.hex, 16);
    if (this.role === 'thought' && !Number.isNaN(unit)) this.thoughtText += String.fromCharCode(unit);
  }

  private endKey(): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) return;
    let key = this.keyText;
    if (key.includes('\\')) {
      const decoded = parseJson(`"${key}"`);
      if (decoded.ok && typeof decoded.value === 'string') key = decoded.value;
    }
    top.key = key;
    if (key === 'steps' && top.objectPath && this.stack.length <= PLAN_SEARCH_DEPTH) this.planKeySeen = true;
    if (key === 'steps' && this.stack.length === 1 && this.stepsState === 'closed') {
      this.duplicateSteps = true;
    }
  }

  private failDuplicate(): ParsedStepEvent | undefined {
    if (this.stopped) return undefined;
    this.stopped = true;
    const index = (this.options.offset ?? 0) + this.count++;
    const issue: PlanIssue = { code: 'bad-json', message: DUPLICATE_STEPS_MESSAGE };
    return { type: 'error', index, error: issue, issues: [issue] };
  }

  private finishStep(text: string): ParsedStepEvent | undefined {
    if (this.stopped) return undefined;
    const position = this.count++;
    const index = (this.options.offset ?? 0) + position;
    const maxSteps = this.options.maxSteps ?? DEFAULT_MAX_STEPS;
    const fail = (...issues: [PlanIssue, ...PlanIssue[]]): ParsedStepEvent => {
      this.stopped = true;
      return { type: 'error', index, error: issues[0], issues };
    };
    if (position >= maxSteps) {
      return fail({
        code: 'too-many-steps',
        step: index,
        message: `The plan has more than ${maxSteps} steps; the limit is ${maxSteps}.`,
      });
    }
    const parsed = parseJson(text);
    if (!parsed.ok) {
      return fail({
        code: 'bad-json',
        step: index,
        message: `Step ${index} is not valid JSON: ${parsed.error}.`,
      });
    }
    const result = validateStep(parsed.value, index, this.options);
    if (!result.ok) return fail(result.issues[0]!, ...result.issues.slice(1));
    return { type: 'step', index, step: result.step };
  }
}
