import { ProviderError } from '../providers/errors.ts';
import type { ChatEvent, ChatRequest, ChatTransport } from '../providers/transport.ts';
import type { ExecuteRequest, Execution } from '../sandbox/code-runner.ts';
import { contentText, type PartsMessage } from '../shared/chat.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { raceAbort } from './abort.ts';
import { RUN_TIME_LIMIT_MS } from './code-runner-worker.ts';

/**
 * The `run` worker: a step given to it runs the code of the answers it sees in the code sandbox
 * (src/sandbox/code-runner.ts: an opaque-origin frame with no network, a time limit, a memory limit, a fresh
 * namespace each run) and answers with what happened. Nothing is sent anywhere and no token is spent, so its
 * "request" never reaches egress and the ledger has no row for it.
 *
 * What it runs: the last fenced Python or JavaScript block of each answer it sees, in the order it sees them,
 * as one program, then the fenced blocks of its own task as test code. A block's fence names its language;
 * an unlabelled block takes the language the task names, else the one its content looks like.
 */

export type RunLanguage = ExecuteRequest['language'];

/** Characters of stdout and of stderr an answer shows (the start: what a program prints first explains most). */
export const RUN_OUTPUT_CHARS = 4000;
/** Characters of a traceback an answer shows (the end: the frame that raised and the exception). */
export const RUN_TRACEBACK_CHARS = 3000;

export const NO_CODE_TO_RUN = 'No code to run';
/** Why a last run step with nothing to run fails rather than answer. */
export const NO_FINAL_ANSWER =
  "This step gives the run's final answer, which must be code and its output, so the run has no final answer: the answers above are what the workers wrote.";

export interface CodeBlock {
  /** The fence's language tag, lower case ('' when there is none). */
  tag: string;
  code: string;
}

const PYTHON_TAGS = new Set(['python', 'py', 'python3', 'py3']);
const JAVASCRIPT_TAGS = new Set(['javascript', 'js', 'mjs', 'node', 'nodejs']);

/** The language a fence tag names, `undefined` for none, `null` for one this runner cannot run. */
function tagLanguage(tag: string): RunLanguage | undefined | null {
  if (tag === '') return undefined;
  if (PYTHON_TAGS.has(tag)) return 'python';
  if (JAVASCRIPT_TAGS.has(tag)) return 'javascript';
  return null;
}

/**
 * Every fenced block of `text` (``` or ~~~, three or more, closed by the same fence or the end of the text).
 * The tag is the info string's first word.
 */
export function fencedBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && line.trim().replace(/[`~]/g, '') === '')
        break;
      body.push(line);
    }
    blocks.push({ tag: (open[2] ?? '').toLowerCase(), code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The language a task names for the code ("run it in Python", "the JavaScript"), if it names exactly one. */
export function taskLanguage(task: string): RunLanguage | undefined {
  const python = /\bpython\b/i.test(task);
  const javascript = /\b(javascript|node(?:\.?js)?|js)\b/i.test(task);
  if (python === javascript) return undefined;
  return python ? 'python' : 'javascript';
}

/** The language code looks like: Python's `def`, `import`, `print(`, colons that open blocks; JavaScript's braces. */
export function guessLanguage(code: string): RunLanguage {
  const python =
    /^\s*(def |class \w+.*:\s*$|import \w|from [\w.]+ import |print\(|if __name__|elif |for \w+ in .*:\s*$)/m.test(
      code,
    );
  const javascript =
    /\b(function\s*\w*\s*\(|const |let |var |=>|console\.log\(|module\.exports)|;\s*$|^\s*}\s*$/m.test(code);
  if (python && !javascript) return 'python';
  if (javascript && !python) return 'javascript';
  return /^\s*def |^\s*import /m.test(code) ? 'python' : javascript ? 'javascript' : 'python';
}

/** The code of one answer: its last block in a language this runner runs (or unlabelled). */
function answerCode(answer: string, stated: RunLanguage | undefined): RunnableBlock | undefined {
  const blocks = fencedBlocks(answer).filter((b) => tagLanguage(b.tag) !== null && b.code.trim() !== '');
  const last = blocks.at(-1);
  if (!last) return undefined;
  return { language: tagLanguage(last.tag) ?? stated ?? guessLanguage(last.code), code: last.code };
}

interface RunnableBlock {
  language: RunLanguage;
  code: string;
}

/** What one run step runs, or why it runs nothing. */
export type RunPlan =
  | { kind: 'run'; request: Omit<ExecuteRequest, 'timeoutMs'>; sources: number; skipped: number }
  | { kind: 'nothing'; why: string };

/**
 * The program for a run step from its context (src/executor/context.ts): the answers it sees are the
 * assistant turns, its own task the last user turn. Answers in another language than the last one's are
 * left out (one program runs in one language) and counted.
 */
export function planRun(messages: readonly PartsMessage[]): RunPlan {
  const task = contentText(messages.at(-1)?.content ?? '');
  const answers = messages.filter((m) => m.role === 'assistant').map((m) => contentText(m.content));
  if (answers.length === 0)
    return { kind: 'nothing', why: `${NO_CODE_TO_RUN}: this step sees no answer of another step.` };
  const stated = taskLanguage(task);
  const found = answers.map((a) => answerCode(a, stated)).filter((b): b is RunnableBlock => b !== undefined);
  const last = found.at(-1);
  if (!last)
    return {
      kind: 'nothing',
      why: `${NO_CODE_TO_RUN}: ${answers.length === 1 ? 'the answer this step sees holds' : `the ${answers.length} answers this step sees hold`} no fenced Python or JavaScript block.`,
    };
  const same = found.filter((b) => b.language === last.language);
  const tests = fencedBlocks(task)
    .filter((b) => (tagLanguage(b.tag) ?? last.language) === last.language && b.code.trim() !== '')
    .map((b) => b.code);
  return {
    kind: 'run',
    request: {
      language: last.language,
      code: same.map((b) => b.code).join('\n\n'),
      ...(tests.length > 0 ? { tests: tests.join('\n\n') } : {}),
    },
    sources: same.length,
    skipped: found.length - same.length,
  };
}

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

function block(title: string, text: string): string {
  const fence = fenceFor(text);
  return `${title}\n${fence}text\n${text}\n${fence}`;
}

/** Code as the model wrote it, in a block tagged with its language (a run step never runs a run step's answer). */
function codeBlock(title: string, code: string, language: RunLanguage): string {
  const fence = fenceFor(code);
  return `${title}\n${fence}${language}\n${code.replace(/\n+$/, '')}\n${fence}`;
}

/** The start of `text`, and how much of it was left out (by the frame's cap and by ours). */
function cut(text: string, dropped: number, max: number): { shown: string; total: number } {
  const total = text.length + dropped;
  return { shown: text.length > max ? text.slice(0, max) : text, total };
}

function outputSection(name: string, text: string, dropped: number): string {
  if (text === '' && dropped === 0) return `${name}: (empty)`;
  const { shown, total } = cut(text, dropped, RUN_OUTPUT_CHARS);
  const title =
    shown.length < total ? `${name} (the first ${shown.length} of ${total} characters):` : `${name}:`;
  return block(title, shown.replace(/\n$/, ''));
}

/**
 * The first line of the exception a Python traceback ends with (the lines after its last frame): the frame
 * reports only the last line, which for a multi-line message (Pyodide's "not installed" hint) is not the one
 * that names the exception.
 */
export function exceptionLine(traceback: string): string | undefined {
  const lines = traceback.trimEnd().split('\n');
  let lastFrame = -1;
  for (const [i, line] of lines.entries()) if (/^ {2}File "/.test(line)) lastFrame = i;
  if (lastFrame < 0) return undefined;
  return lines.slice(lastFrame + 1).find((line) => line !== '' && !/^\s/.test(line));
}

/** A Python traceback without the frames of Pyodide's own runner (they say nothing about the code). */
export function readableTraceback(traceback: string): string {
  const lines = traceback.split('\n');
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^ {2}File "/.test(line)) skipping = /\/_pyodide\/|\/lib\/python[\d.]*\.zip\/_pyodide/.test(line);
    else if (!/^ {3,}/.test(line)) skipping = false;
    if (!skipping) kept.push(line);
  }
  const text = kept.join('\n').trim();
  return text.length > RUN_TRACEBACK_CHARS ? `…${text.slice(-RUN_TRACEBACK_CHARS)}` : text;
}

const LANGUAGE_NAME: Record<RunLanguage, string> = { python: 'Python', javascript: 'JavaScript' };

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * The exception's name when it is a plain (dotted) identifier: the only words of the code's own that the result
 * line may hold. Python's `type('…', (Exception,), {})` and JavaScript's `error.name` can be any text, and a
 * name that is not an identifier could forge a second result line.
 */
export function exceptionName(line: string | undefined): string | undefined {
  return /^([A-Za-z_$][\w$.]{0,99})(?::|$)/.exec(line?.split('\n', 1)[0]?.trim() ?? '')?.[1];
}

/**
 * The result line: what happened, in words, first. It holds nothing the code wrote but an exception's
 * identifier-shaped name: messages go in a fenced block below it (see formatExecution).
 */
function resultLine(
  execution: Execution,
  name: string | undefined,
  timeoutMs: number,
  language: RunLanguage,
): string {
  const raised = name ?? 'an exception';
  switch (execution.outcome) {
    case 'ok':
      return `Result: ran to its end (exit status 0) in ${seconds(execution.ms)}.`;
    case 'exit':
      return `Result: exited early (${name ?? 'SystemExit'}) after ${seconds(execution.ms)}.`;
    case 'timeout':
      return `Result: stopped at the time limit (${seconds(timeoutMs)}): the code did not finish; an endless loop?`;
    case 'crashed':
      return 'Result: the code runner stopped responding (most likely the code ran out of memory); it was restarted.';
    case 'tampered':
      return `Result: the code altered the ${LANGUAGE_NAME[language]} interpreter the runs share; its result does not count, and a new interpreter was started.`;
    case 'exception': {
      if (name === 'ModuleNotFoundError')
        return `Result: raised ModuleNotFoundError after ${seconds(execution.ms)} (the sandbox has Python's standard library only, and no network to install packages).`;
      if (name === 'MemoryError')
        return `Result: raised MemoryError after ${seconds(execution.ms)}: the code reached the sandbox's memory limit.`;
      return `Result: raised ${raised} after ${seconds(execution.ms)}.`;
    }
  }
}

/**
 * What happened to a run, in words: the result line, then the exception's message, the traceback, stdout and
 * stderr, each in a fenced text block longer than any backtick run inside it. Everything the code produced
 * is in a block: no message can add a line that reads as the runner's own, nor a code block of its own.
 * `between` goes after the result line (a run step's account of what it ran, and the code).
 */
export function executionReport(
  execution: Execution,
  language: RunLanguage,
  timeoutMs = RUN_TIME_LIMIT_MS,
  between: readonly string[] = [],
): string {
  const raisedByCode = execution.outcome === 'exception' || execution.outcome === 'exit';
  const pythonLine =
    language === 'python' && execution.traceback ? exceptionLine(execution.traceback) : undefined;
  const message = raisedByCode ? (pythonLine ?? execution.error ?? '') : '';
  const traceback = execution.traceback
    ? language === 'python'
      ? readableTraceback(execution.traceback)
      : execution.traceback
    : '';
  // JavaScript reports the message alone; its stack's first line names the error.
  const name = raisedByCode
    ? exceptionName(language === 'python' ? message : traceback || undefined)
    : undefined;
  const parts = [resultLine(execution, name, timeoutMs, language), ...between];
  if (message.trim() !== '' && !traceback.includes(message)) parts.push(block('Exception:', message));
  if (traceback) parts.push(block('Traceback:', traceback));
  parts.push(outputSection('stdout', execution.stdout, execution.stdoutDropped));
  parts.push(outputSection('stderr', execution.stderr, execution.stderrDropped));
  return parts.join('\n\n');
}

/** The run step's answer: the execution's report with what was run, and the code itself, after its result line. */
export function formatExecution(
  execution: Execution,
  plan: Extract<RunPlan, { kind: 'run' }>,
  timeoutMs = RUN_TIME_LIMIT_MS,
): string {
  const { language } = plan.request;
  const what = [
    `Ran the ${LANGUAGE_NAME[language]} code of ${plan.sources === 1 ? 'the answer' : `${plan.sources} answers`} this step sees`,
    plan.request.tests ? ", then the task's test code" : '',
    plan.skipped > 0
      ? ` (${plan.skipped} block${plan.skipped === 1 ? '' : 's'} in another language left out)`
      : '',
    '.',
  ].join('');
  // The code itself, so a step that reads this answer (a fixer added in review sees only the step before
  // it) has the code beside its output, and a run step's answer that is the final answer shows both.
  const code = [codeBlock('Code:', plan.request.code, language)];
  if (plan.request.tests) code.push(codeBlock("The task's test code:", plan.request.tests, language));
  return executionReport(execution, language, timeoutMs, [what, ...code]);
}

/** The sandbox as the run step needs it: made on first use (it loads a frame, and Pyodide for Python). */
export type RunSandbox = () => Promise<{ execute(request: ExecuteRequest): Promise<Execution> }>;

/**
 * The `run` worker's transport: answers with the run's result as one piece of text, and a usage of zero
 * tokens (nothing was sent, nothing is estimated). With no code to run it says so, unless its answer is the
 * run's final answer: then the step fails (the answer would be "No code to run"). Code that cannot run here
 * (the sandbox or Pyodide could not load) is an answer that says so: the run goes on, and the steps after it
 * read why.
 */
export class RunStepTransport implements ChatTransport {
  constructor(
    private readonly sandbox: RunSandbox,
    private readonly timeoutMs = RUN_TIME_LIMIT_MS,
  ) {}

  async *stream(_worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
    const plan = planRun(request.messages);
    let text: string;
    if (plan.kind === 'nothing') {
      // "No code to run" is no answer to the question: as the final answer it would be offered for Copy.
      if (request.final) throw new ProviderError('unexpected-response', `${plan.why} ${NO_FINAL_ANSWER}`);
      text = plan.why;
    } else {
      const running = this.sandbox().then((sandbox) =>
        sandbox.execute({ ...plan.request, timeoutMs: this.timeoutMs }),
      );
      try {
        text = formatExecution(await raceAbort(running, request.signal), plan, this.timeoutMs);
      } catch (error) {
        if (request.signal.aborted) throw new ProviderError('aborted', 'Cancelled');
        text = `Result: the code could not be run here: ${(error as Error).message}`;
      }
    }
    yield { type: 'delta', text };
    yield { type: 'usage', promptTokens: 0, completionTokens: 0 };
  }
}
