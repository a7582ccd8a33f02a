/**
 * The built-in tool `sandbox.run_python`: the code sandbox (src/sandbox/code-runner.ts, an opaque-origin
 * frame with no network, a time limit and a fresh namespace each run) offered as a tool inside a step, so
 * one worker can write code, read its output and try again within its step. It is the `run` worker's
 * sandbox, offered when that worker is (Settings → the code sandbox), and it reads nothing of the user's
 * and sends nothing anywhere: no question before a call, no egress, no ledger row; the step's card lists
 * the call like any other. Its output is what a `run` step reports (executionReport), fenced as data and
 * capped by step-tools.ts like a server's result.
 */
import { raceAbort } from '../executor/abort.ts';
import { RUN_TIME_LIMIT_MS } from '../executor/code-runner-worker.ts';
import type { RunSandbox } from '../executor/run-step.ts';
import type { ToolResult } from './connection.ts';
import { planToolName, SANDBOX_SERVER } from './servers.ts';

/** A tool the page itself provides: called in the step's tool loop like a server's, but run here. */
export interface BuiltinTool {
  /** Its plan name's two halves: `server.tool`. */
  server: string;
  tool: string;
  /** As the step's model reads it. */
  description: string;
  /**
   * As the conductor reads it, on the tool's one line (cut at 80 characters there): when to grant it, since
   * the few-shots show none of it.
   */
  plannerNote: string;
  inputSchema: Record<string, unknown>;
  /** Never throws for the code's own failures (they are its result); throws only when `signal` aborts. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

export const RUN_PYTHON = 'run_python';
/** As a plan names it. */
export const RUN_PYTHON_TOOL = planToolName(SANDBOX_SERVER, RUN_PYTHON);
/** Most characters of code one call may run: a program, not a data file. */
export const MAX_CODE_CHARS = 20_000;

const DESCRIPTION =
  "Runs a Python program on the user's device (standard library only, no network, no files, 10 s limit) and returns what it printed or the error.";

/**
 * The few-shots keep the separate `run` step (code and output seen as a step, fixed by another worker);
 * this tool is for a worker that checks its own working as it answers. See ARCHITECTURE.md.
 */
const PLANNER_NOTE = 'runs Python within the step; a run step instead shows the code and its output';

function text(value: string, isError: boolean): ToolResult {
  return { content: [{ type: 'text', text: value }], isError };
}

/** `sandbox.run_python` over the page's sandbox (made on its first call). */
export function sandboxTool(sandbox: RunSandbox, timeoutMs = RUN_TIME_LIMIT_MS): BuiltinTool {
  return {
    server: SANDBOX_SERVER,
    tool: RUN_PYTHON,
    description: DESCRIPTION,
    plannerNote: PLANNER_NOTE,
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_CODE_CHARS,
          description: 'The whole program; print what you need to read.',
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    async run(args, signal) {
      const code = String(args.code);
      const running = sandbox().then((s) => s.execute({ language: 'python', code, timeoutMs }));
      try {
        // The run worker's report of an execution, loaded with the first call (not first-load JS).
        const [{ executionReport }, execution] = await Promise.all([
          import('../executor/run-step.ts'),
          raceAbort(running, signal),
        ]);
        return text(executionReport(execution, 'python', timeoutMs), execution.outcome !== 'ok');
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        return text(`The code could not be run here: ${(error as Error).message}`, true);
      }
    },
  };
}
