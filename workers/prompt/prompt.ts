import type { ChatMessage } from '../../src/shared/chat.ts';
import type {
  AttachmentSummary,
  ConversationTurn,
  OfferedTool,
  PlanExample,
} from '../../src/shared/conductor-api.ts';
import type { PlanMode } from '../../src/shared/plan/index.ts';
import { type Plan, planLimitsFor, type Step } from '../../src/shared/plan/index.ts';
import { truncateMiddle } from '../../src/shared/truncate-middle.ts';
import { RUN_WORKER, SELF_WORKER } from '../../src/shared/worker-ids.ts';
import { conversationMessage } from './conversation.ts';
import { DATA_RULE, fenceData } from './data-fence.ts';
import { conductorShots, mapRoles, routerShots, type Shot, type ShotWorker } from './few-shots.ts';
import { filesText } from './files.ts';
import { instructionsLine } from './instructions.ts';
import { toolsText } from './tools.ts';

/**
 * The conductor's prompts. Runs in the thread (no DOM). Our own text is ASCII only (the tiny test model
 * spells anything else byte by byte) and compact (small models, small GPUs, short context windows).
 */

export { truncateMiddle };

export type PromptWorker = ShotWorker & { vision?: true; tools?: true };

export interface PlanPromptInput {
  question: string;
  /** The pool, without `self`. */
  pool: readonly PromptWorker[];
  mode: PlanMode;
  maxSteps: number;
  maxDepth: number;
  /**
   * Whether the executor sends every worker the question as its first turn (its `includeQuestion`, default
   * true). The prompt must say what is true: with it, tasks are instructions; without it, they restate.
   */
  includeQuestion?: boolean;
  /** Past good workflows for similar questions (workflow memory), added after the built-in examples. */
  examples?: readonly PlanExample[];
  /** A follow-up's earlier turns (workers/prompt/conversation.ts): shown compactly before the question. */
  conversation?: readonly ConversationTurn[];
  /** The question's attached files (summaries), listed after the question. */
  attachments?: readonly AttachmentSummary[];
  /** The thread's standing instructions: one short line before the question (instructions.ts). */
  instructions?: string;
  /** The tools offered (tools.ts): listed in the system prompt only when there are some. */
  tools?: readonly OfferedTool[];
}

function poolLines(pool: readonly PromptWorker[], allowSelf: boolean, maxDepth: number): string {
  const lines = pool.map((w) => {
    if (w.id === RUN_WORKER) return `- ${RUN_WORKER}: runs the code it sees, shows output or error.`;
    const notes = [w.costTier ? `cost ${w.costTier}` : '', w.webSearch ? 'searches the web' : ''];
    const said = notes.filter(Boolean).join(', ');
    const strengths = w.strengths.trim() ? ` ${w.strengths.trim()}` : '';
    return `- ${w.id}: ${w.label}${said ? ` (${said})` : ''}.${strengths}`;
  });
  if (allowSelf) {
    lines.push(
      `- ${SELF_WORKER}: you, the conductor. Last step only: check, fix or accept (${maxDepth} level${maxDepth === 1 ? '' : 's'} max).`,
    );
  }
  return lines.join('\n');
}

const FORMAT =
  'Reply with JSON only: {"thought": "...", "steps": [{"worker": "<id>", "task": "...", "sees": []}]}';

/** What a task must be, given what the executor sends each worker (src/executor/context.ts). */
function taskRule(includeQuestion: boolean, workers: 'every worker' | 'the worker'): string {
  return includeQuestion
    ? `- task: an instruction. ${workers === 'every worker' ? 'Every worker gets' : 'The worker gets'} the question too: do not restate it.`
    : `- task: the whole prompt. ${workers === 'every worker' ? 'Workers never get' : 'The worker never gets'} the question: restate what is needed.`;
}

function rules(maxSteps: number, includeQuestion: boolean, replan = false): string {
  return [
    taskRule(includeQuestion, 'every worker'),
    '- sees: [] none, "all" every earlier step, or earlier step numbers (from 0). Steps not seeing each other run in parallel.',
    `- At most ${maxSteps} step${maxSteps === 1 ? '' : 's'}. The last step's answer is the final answer: make it complete.`,
    replan
      ? '- "thought": a few words.'
      : '- Easy: one cheap step. Hard: plan, solve, check. "thought": a few words.',
  ].join('\n');
}

function planJson(plan: Plan): string {
  return JSON.stringify(plan);
}

function shotTurns(shots: readonly Shot[]): ChatMessage[] {
  return shots.flatMap((shot): ChatMessage[] => [
    { role: 'user', content: shot.question },
    { role: 'assistant', content: planJson(shot.plan) },
  ]);
}

/** Longest past question an example quotes: the examples are prefilled on the device, so they stay short. */
const EXAMPLE_QUESTION_CHARS = 300;

/**
 * The past workflows as earlier turns, like the built-in ones. Router mode writes no thought, so its
 * examples carry none either.
 */
function exampleTurns(examples: readonly PlanExample[], router: boolean): ChatMessage[] {
  return examples.flatMap(({ question, plan }): ChatMessage[] => [
    { role: 'user', content: truncateMiddle(question, EXAMPLE_QUESTION_CHARS) },
    { role: 'assistant', content: planJson(router ? { steps: plan.steps } : plan) },
  ]);
}

/**
 * The first plan: system prompt (pool, rules, limits), few-shot workflows as earlier turns, then the question.
 * Every token of it is prefilled on the user's device before planning starts, so it says each thing once.
 */
export function buildPlanMessages(input: PlanPromptInput): ChatMessage[] {
  if (input.pool.length === 0) throw new Error('buildPlanMessages: the pool has no workers');
  const router = input.mode === 'router';
  const { maxSteps, allowSelf } = planLimitsFor(input.mode, input);
  const includeQuestion = input.includeQuestion ?? true;
  const roles = mapRoles(input.pool);
  const system = router
    ? [
        'You are the conductor in router mode: you do not answer, you pick the one best worker for the question.',
        poolLines(input.pool, false, 0),
        'Reply with JSON only: {"steps": [{"worker": "<id>", "task": "...", "sees": []}]}',
        'Router mode: exactly one step. Easy question: a cheap worker. Hard: the strongest one that fits.',
        taskRule(includeQuestion, 'the worker'),
        ...offeredTools(input, true),
      ]
    : [
        'You are the conductor. Do not answer: plan a short workflow for these workers.',
        poolLines(input.pool, allowSelf, input.maxDepth),
        'Reply with JSON like the examples:',
        rules(maxSteps, includeQuestion),
        ...offeredTools(input, false),
      ];
  const shots = router
    ? routerShots(roles, { includeQuestion })
    : conductorShots(roles, { maxSteps, allowSelf, includeQuestion });
  return [
    { role: 'system', content: system.join('\n') },
    ...shotTurns(shots),
    ...exampleTurns(input.examples ?? [], router),
    {
      role: 'user',
      content: withDataRule(
        withInstructions(
          input.instructions,
          input.conversation?.length
            ? conversationMessage(input.conversation, questionWithFiles(input, router))
            : questionWithFiles(input, router),
        ),
      ),
    },
  ];
}

/** The tools block, as lines of the system prompt (none when no tool is offered). */
function offeredTools(input: PlanPromptInput, router: boolean): string[] {
  const takers = input.pool.filter((w) => w.tools && !(router && w.id === RUN_WORKER)).map((w) => w.id);
  const text = toolsText(input.tools, takers);
  // A tool's description is its server's text, fenced: the rule about fences goes with it.
  return text ? [text, DATA_RULE] : [];
}

/**
 * The turn, then the data rule, when it holds fenced text (files, earlier answers, the thread's
 * instructions): said where data is, not in the system prompt every question prefills.
 */
function withDataRule(content: string): string {
  return content.includes('<data>') ? `${content}\n\n${DATA_RULE}` : content;
}

/** The thread's instructions line, then the rest of the turn (unchanged when the thread has none). */
function withInstructions(instructions: string | undefined, content: string): string {
  const line = instructionsLine(instructions);
  return line ? `${line}\n\n${content}` : content;
}

/** The question, then (when it carries files) what the conductor may know of them. */
function questionWithFiles(input: PlanPromptInput, router: boolean): string {
  const vision = input.pool.filter((w) => w.vision).map((w) => w.id);
  const files = filesText(input.attachments, vision, router);
  return files ? `${input.question}\n\n${files}` : input.question;
}

// ---------------------------------------------------------------------------------------------------------
// Recursion: a `self` step asks the conductor to check the workflow so far.

export interface ReplanPromptInput {
  question: string;
  pool: readonly PromptWorker[];
  /** Every step so far (global indices). */
  steps: readonly Step[];
  /** answers[i] is step i's answer; null when it has none. */
  answers: readonly (string | null)[];
  /** Depth of the corrective steps (1 for a `self` step of the first plan). */
  depth: number;
  maxDepth: number;
  /** Most corrective steps (default 3). */
  maxSteps?: number;
  /** Characters of answers shown in all (default 6000); long answers keep their start and end. */
  answerBudget?: number;
  /** Whether every worker is sent the question (see PlanPromptInput). */
  includeQuestion?: boolean;
}

function seesText(sees: Step['sees']): string {
  if (sees === 'all') return 'all';
  return sees.length === 0 ? 'none' : sees.join(', ');
}

function workflowText(steps: readonly Step[], answers: readonly (string | null)[], budget: number): string {
  const answered = Math.max(1, answers.filter((a) => a !== null).length);
  const perAnswer = Math.max(200, Math.floor(budget / answered));
  return steps
    .map((step, i) => {
      const answer = answers[i];
      // A worker's answer is data (it may quote a file, a page, a tool's output), never the planner's orders.
      const body =
        answer === null || answer === undefined
          ? '(no answer)'
          : fenceData(truncateMiddle(answer, perAnswer));
      return `Step ${i} - worker ${step.worker}, sees ${seesText(step.sees)}\nTask: ${step.task}\nAnswer: ${body}`;
    })
    .join('\n\n');
}

/** The workflow with its answers, then where new steps start. */
function checkText(steps: readonly Step[], answers: readonly (string | null)[], budget: number): string {
  return `${workflowText(steps, answers, budget)}\n\nNew steps start at step ${steps.length}. Accept or correct.`;
}

/**
 * The recursion prompt: the question, the workflow so far with its answers, and the choice between
 * corrective steps (appended to the workflow, numbered after it) and `{"steps": []}` to accept.
 */
export function buildReplanMessages(input: ReplanPromptInput): ChatMessage[] {
  if (input.pool.length === 0) throw new Error('buildReplanMessages: the pool has no workers');
  const maxSteps = Math.max(1, input.maxSteps ?? 3);
  const allowSelf = input.depth < input.maxDepth && maxSteps > 1;
  const roles = mapRoles(input.pool);
  const system = [
    'You are the conductor, checking a workflow you wrote. Workers:',
    poolLines(input.pool, allowSelf, input.maxDepth),
    '',
    'If the last answer fully and correctly answers the question, accept it with {"steps": []}.',
    `Otherwise add at most ${maxSteps} corrective step${maxSteps === 1 ? '' : 's'}, numbered after the workflow's steps; they may see any earlier step, and the last one must give the complete, corrected answer.`,
    FORMAT,
    'Rules:',
    rules(maxSteps, input.includeQuestion ?? true, true),
    DATA_RULE,
  ].join('\n');
  // One accepting example and one correcting example, on the real pool ids.
  const acceptExample: Plan = { thought: 'The answer is correct and complete.', steps: [] };
  const fixExample: Plan = {
    thought: 'Step 1 missed the empty input case; fix it.',
    steps: [
      {
        worker: roles.coder,
        task: 'This code fails on an empty list. Fix it and return the full corrected code.',
        sees: [1],
      },
    ],
  };
  const exampleWorkflow = (answer: string) =>
    'Question: Write a function that returns the largest number in a list.\n\nWorkflow so far:\n' +
    checkText(
      [
        { worker: roles.reasoner, task: 'Describe how to find the largest number in a list.', sees: [] },
        { worker: roles.coder, task: 'Write the function in Python.', sees: [0] },
      ],
      ['Scan the list once, keeping the largest value seen.', answer],
      600,
    );
  return [
    { role: 'system', content: system },
    {
      role: 'user',
      content: exampleWorkflow(
        'def largest(xs):\n    m = xs[0]\n    for x in xs: m = max(m, x)\n    return m',
      ),
    },
    { role: 'assistant', content: planJson(fixExample) },
    {
      role: 'user',
      content: exampleWorkflow(
        'def largest(xs):\n    if not xs: return None\n    m = xs[0]\n    for x in xs: m = max(m, x)\n    return m',
      ),
    },
    { role: 'assistant', content: planJson(acceptExample) },
    {
      role: 'user',
      content: `Question: ${input.question}\n\nWorkflow so far:\n${checkText(input.steps, input.answers, input.answerBudget ?? 6000)}`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Repair: one more attempt after an invalid plan, quoting what was wrong.

export interface RepairPromptInput {
  /** The messages of the failed attempt. */
  messages: readonly ChatMessage[];
  /** What the model wrote. */
  output: string;
  /** The validation message. */
  error: string;
  /**
   * Steps of the output that were valid and are already running: the repair continues after them
   * rather than writing them again. `first` is the workflow index of the first of them.
   */
  kept?: { first: number; count: number };
}

/** The failed attempt's messages, the rejected output, and a request to fix it that quotes the error. */
export function buildRepairMessages(input: RepairPromptInput): ChatMessage[] {
  const output = input.output.trim() ? truncateMiddle(input.output, 2000) : '(empty output)';
  return [
    ...input.messages,
    { role: 'assistant', content: output },
    {
      role: 'user',
      content:
        `That JSON was rejected: "${input.error.trim()}" ` +
        (input.kept && input.kept.count > 0
          ? continueRequest(input.kept)
          : 'Write the whole JSON again with that fixed.') +
        ' Use only the worker ids listed, and reply with JSON only.',
    },
  ];
}

/** The repair of an output whose first steps were valid: they stay, and the new steps follow them. */
function continueRequest(kept: { first: number; count: number }): string {
  const last = kept.first + kept.count - 1;
  const which = kept.count === 1 ? `Step ${last} was` : `Steps ${kept.first}–${last} were`;
  return (
    `${which} valid and already running: keep ${kept.count === 1 ? 'it' : 'them'}, do not write ${kept.count === 1 ? 'it' : 'them'} again. ` +
    `Write JSON with only the steps that come after, numbered from step ${last + 1} (they may see any earlier step), ` +
    'or {"steps": []} if nothing more is needed.'
  );
}
