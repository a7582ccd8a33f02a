import { PYODIDE_FILES, type PyodideFiles } from './python-assets.ts';

/**
 * Runs code answers in public/sandbox/code-runner.html inside `<iframe sandbox="allow-scripts">`: an opaque
 * origin (no IndexedDB, so no reach to the vault), a policy with no network at all, and one worker per run so
 * a time limit can stop an endless loop. A worker of our own origin would be able to read the vault.
 *
 * An answer can also exhaust memory: a worker's heap is not bounded apart from V8's own limit, and reaching
 * that limit crashes the whole renderer process that hosts the frame. So the frame should live in a process
 * of its own: served from another site (BATON_SANDBOX_ORIGIN, see the README), site isolation gives it one;
 * from this origin, desktop Chromium still isolates sandboxed frames (IsolateSandboxedIframes), other browsers
 * and Android may not. Whatever happens there, the page keeps a watchdog: a run that does not answer in time,
 * or a frame that stops answering pings (its process died), costs that run a failed verdict, and the frame is
 * replaced by a fresh one for the next run.
 *
 * Python answers run in the same frame under Pyodide. The frame has no network, so the page fetches Pyodide's
 * files (from this origin, only when a Python task is first scored; the service worker keeps them) and hands
 * the bytes in. The frame keeps one interpreter for many runs, each in a fresh namespace, and replaces it
 * after a run that timed out. Its verdict comes over a port only the frame's harness holds (see
 * public/sandbox/code-runner.html, pythonHarness): an answer can print, raise or post what it likes, it
 * cannot post a verdict. A run passes only when its program returns and its last line (with a per-run
 * nonce) ran. Answers share the interpreter, so one written to attack the bench rather than solve its task
 * could alter what runs the programs after it; a known program run after each answer (it must set its line
 * and fail its assert) catches that kind of change, fails the answer and replaces the interpreter. An
 * alteration that recognises that program would still get through: a fresh interpreter per answer (a
 * Pyodide memory snapshot) is the complete answer, not built yet.
 */

export interface Verdict {
  passed: boolean;
  message: string;
}

/** One Python program to run (src/evaluation/python-program.ts writes the bench's). */
export interface PythonRun {
  program: string;
  stdin?: string;
  /** For stdin/stdout tasks: compared with the program's output by the caller; a `sys.exit(0)` then ends it. */
  expectedStdout?: string;
}

/** What the sandbox reports for one PythonRun: whether it ran to its end without an exception, and what it printed. */
export interface PythonVerdict {
  passed: boolean;
  message: string;
  stdout: string;
}

/** Code to run as it is, for its output (a `run` step): the program, and test code run after it in the same namespace. */
export interface ExecuteRequest {
  language: 'python' | 'javascript';
  code: string;
  tests?: string;
  timeoutMs: number;
}

/**
 * What happened to one ExecuteRequest. `outcome`: `ok` it ran to its end; `exception` it raised (`error` is
 * the exception's line, `traceback` the rest); `exit` it ended with SystemExit (`error` says the status);
 * `timeout` it passed its time limit; `crashed` the runner stopped answering (most likely out of memory);
 * `tampered` it altered the interpreter the runs share. The frame caps stdout and stderr as they are written
 * (`…Dropped`: characters it left out).
 */
export interface Execution {
  outcome: 'ok' | 'exception' | 'exit' | 'timeout' | 'crashed' | 'tampered';
  error?: string;
  traceback?: string;
  stdout: string;
  stderr: string;
  stdoutDropped: number;
  stderrDropped: number;
  /** Time the code ran, measured in the runner (the time limit for a timeout). */
  ms: number;
}

export interface SandboxRunnerOptions {
  /** Where the hidden frame goes. Default: document.body. */
  container?: HTMLElement;
  /** The origin that serves /sandbox/code-runner.html. Default: the build's BATON_SANDBOX_ORIGIN, else this one. */
  origin?: string;
  /** How long the frame may leave pings unanswered before it counts as crashed. */
  stallMs?: number;
  /** How long a new frame may take to load and connect. */
  startMs?: number;
  /** Where Pyodide's files are fetched from. Default: this build's copy (pyodideUrl). */
  pyodideUrl?: string;
}

const PING_EVERY_MS = 500;
/** Generous: on a loaded machine a healthy frame can be slow to answer, and a false alarm fails an answer. */
const STALL_MS = 5000;
const START_MS = 20_000;
/** The frame enforces the time limit itself; the page's own bound comes this much later. */
const GRACE_MS = 2000;
/** A Python run may first have to start the interpreter (seconds on a loaded machine): the page waits longer. */
const PYTHON_START_MS = 60_000;

type FromRunner =
  | { type: 'connected'; languages: string[] }
  /** Not from the frame: the page closed it (dispose). */
  | { type: 'closed' }
  | { type: 'pong'; seq: number }
  | {
      type: 'verdict';
      id: string;
      passed: unknown;
      message: unknown;
      stdout?: unknown;
      stderr?: unknown;
      stdoutDropped?: unknown;
      stderrDropped?: unknown;
      traceback?: unknown;
      errorType?: unknown;
      timedOut?: unknown;
      ms?: unknown;
      unavailable?: unknown;
    };

type RunRequest =
  | { language: 'javascript'; code: string; tests: string; timeoutMs: number }
  /** exitEnds: a stdin/stdout program may end with sys.exit(0); its output decides. */
  | { language: 'python'; program: string; stdin: string; exitEnds: boolean; timeoutMs: number };

/**
 * `unavailable`: the answer could not be run at all (no verdict on it); `broken`: the page's watchdog ended
 * it (the frame is replaced). The rest is what the frame reports of the run.
 */
type RunVerdict = Verdict & {
  stdout: string;
  stderr: string;
  stdoutDropped: number;
  stderrDropped: number;
  traceback: string;
  errorType: string;
  timedOut: boolean;
  ms: number;
  broken?: true;
  unavailable?: true;
};

const EMPTY_REPORT = {
  stdout: '',
  stderr: '',
  stdoutDropped: 0,
  stderrDropped: 0,
  traceback: '',
  errorType: '',
  timedOut: false,
  ms: 0,
};

const CLOSED: RunVerdict = {
  passed: false,
  message: 'the code runner was closed before this answer finished',
  ...EMPTY_REPORT,
  unavailable: true,
};

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * The answer could not be run here at all: the runner did not start, was closed first, or Python's files
 * did not download or its interpreter did not start. No verdict on the answer (score.ts: unscored).
 */
export class RunnerUnavailableError extends Error {
  override name = 'RunnerUnavailableError';
}

/** The configured sandbox origin (vite.config.ts defines it from BATON_SANDBOX_ORIGIN), or this page's. */
export function sandboxOrigin(): string {
  const configured: unknown = import.meta.env.BATON_SANDBOX_ORIGIN;
  return typeof configured === 'string' && configured !== '' ? configured : location.origin;
}

export function sandboxUrl(origin = sandboxOrigin()): string {
  return new URL(`${import.meta.env.BASE_URL}sandbox/code-runner.html`, origin).href;
}

/** Where this build serves Pyodide's files (vite.config.ts copies them from the npm package). */
export function pyodideUrl(): string {
  return new URL(`${import.meta.env.BASE_URL}${import.meta.env.BATON_PYODIDE_PATH}/`, location.href).href;
}

let pyodideFiles: Promise<PyodideFiles> | undefined;

/** Fetches Pyodide's files once per page; a failed download is tried again on the next Python run. */
export function fetchPyodideFiles(base = pyodideUrl()): Promise<PyodideFiles> {
  pyodideFiles ??= (async () => {
    const entries = await Promise.all(
      PYODIDE_FILES.map(async (name) => {
        const url = new URL(name, base).href;
        let response: Response;
        try {
          response = await fetch(url);
        } catch (error) {
          throw new Error(`Python's runtime (${url}) could not be downloaded: ${(error as Error).message}`);
        }
        if (!response.ok)
          throw new Error(`Python's runtime (${url}) could not be downloaded: HTTP ${response.status}`);
        return [name, await response.arrayBuffer()] as const;
      }),
    );
    return Object.fromEntries(entries) as PyodideFiles;
  })();
  pyodideFiles.catch(() => {
    pyodideFiles = undefined;
  });
  return pyodideFiles;
}

/** One runner frame: loads, is handed a private MessagePort, answers pings and runs. */
class RunnerFrame {
  private listeners = new Set<(message: FromRunner) => void>();
  private lastPong = performance.now();
  private seq = 0;
  private destroyed = false;

  private constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly port: MessagePort,
  ) {
    port.onmessage = (event: MessageEvent<FromRunner>) => {
      const message = event.data;
      if (message?.type === 'pong') this.lastPong = performance.now();
      for (const listener of this.listeners) listener(message);
    };
  }

  static start(url: string, container: HTMLElement, startMs: number): Promise<RunnerFrame> {
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    frame.title = 'Code runner';
    frame.style.display = 'none';
    frame.src = url;
    return new Promise((resolve, reject) => {
      const channel = new MessageChannel();
      const fail = (reason: string) => {
        cleanup();
        frame.remove();
        channel.port1.close();
        reject(new Error(`The code runner at ${url} did not start: ${reason}`));
      };
      const timer = setTimeout(() => fail(`no answer within ${Math.round(startMs / 1000)} s`), startMs);
      const onReady = (event: MessageEvent) => {
        if (event.source !== frame.contentWindow || event.data?.type !== 'ready') return;
        window.removeEventListener('message', onReady);
        channel.port1.onmessage = (reply: MessageEvent<FromRunner>) => {
          if (reply.data?.type !== 'connected') return;
          cleanup();
          resolve(new RunnerFrame(frame, channel.port1));
        };
        // The frame's origin is opaque, so '*' is the only target; the port makes the rest private.
        frame.contentWindow?.postMessage({ type: 'connect' }, '*', [channel.port2]);
      };
      const cleanup = () => {
        clearTimeout(timer);
        window.removeEventListener('message', onReady);
      };
      window.addEventListener('message', onReady);
      container.append(frame);
    });
  }

  /** Resolves true when the frame answers a ping within `stallMs`. */
  ping(stallMs: number): Promise<boolean> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), stallMs);
      const done = (alive: boolean) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(alive);
      };
      const listener = (message: FromRunner) => {
        if (message?.type === 'pong' && message.seq === seq) done(true);
      };
      this.listeners.add(listener);
      this.port.postMessage({ type: 'ping', seq });
    });
  }

  private pythonFilesSent = false;

  /** Hands Pyodide's files to this frame once (copies: the page keeps its own for the next frame). */
  givePythonFiles(files: PyodideFiles): void {
    if (this.pythonFilesSent) return;
    this.pythonFilesSent = true;
    this.port.postMessage({ type: 'python-files', files });
  }

  /** Runs one answer; settles with the frame's verdict, a timeout, or a crash (no pong for `stallMs`). */
  run(request: RunRequest, stallMs: number): Promise<RunVerdict> {
    const id = crypto.randomUUID();
    const { timeoutMs } = request;
    if (this.destroyed) return Promise.resolve(CLOSED);
    return new Promise((resolve) => {
      const settle = (verdict: RunVerdict) => {
        clearTimeout(deadline);
        clearInterval(heartbeat);
        this.listeners.delete(listener);
        resolve(verdict);
      };
      const listener = (message: FromRunner) => {
        if (message?.type === 'closed') settle(CLOSED);
        if (message?.type !== 'verdict' || message.id !== id) return;
        settle({
          passed: message.passed === true,
          message: String(message.message ?? ''),
          stdout: String(message.stdout ?? ''),
          stderr: String(message.stderr ?? ''),
          stdoutDropped: count(message.stdoutDropped),
          stderrDropped: count(message.stderrDropped),
          traceback: String(message.traceback ?? ''),
          errorType: String(message.errorType ?? ''),
          timedOut: message.timedOut === true,
          ms: count(message.ms),
          ...(message.unavailable === true ? { unavailable: true as const } : {}),
        });
      };
      const deadline = setTimeout(
        () =>
          settle({
            passed: false,
            message: `timed out after ${timeoutMs} ms`,
            ...EMPTY_REPORT,
            timedOut: true,
            ms: timeoutMs,
            broken: true,
          }),
        timeoutMs + GRACE_MS + (request.language === 'python' ? PYTHON_START_MS : 0),
      );
      this.lastPong = performance.now();
      const heartbeat = setInterval(() => {
        if (performance.now() - this.lastPong > stallMs) {
          settle({
            passed: false,
            message:
              'the code runner stopped responding while running this answer (it most likely ran out of memory); it was restarted',
            ...EMPTY_REPORT,
            broken: true,
          });
          return;
        }
        this.port.postMessage({ type: 'ping', seq: ++this.seq });
      }, PING_EVERY_MS);
      this.listeners.add(listener);
      this.port.postMessage({ type: 'run', id, ...request });
    });
  }

  destroy(): void {
    this.destroyed = true;
    for (const listener of [...this.listeners]) listener({ type: 'closed' });
    this.listeners.clear();
    this.port.close();
    this.frame.remove();
  }
}

/**
 * A code runner for the page. Runs go one at a time, so a runaway answer can only fail itself: a crash
 * takes down the frame's process, and with it whatever else was running there.
 */
export interface SandboxRunner {
  /** JavaScript `code`, then `tests` (which call `assert`): passes when the tests run to their end. */
  run(code: string, tests: string, timeoutMs: number): Promise<Verdict>;
  runPython(run: PythonRun, timeoutMs: number): Promise<PythonVerdict>;
  /** Runs code for what it does (a `run` step): throws RunnerUnavailableError when it cannot run here at all. */
  execute(request: ExecuteRequest): Promise<Execution>;
  dispose(): void;
}

/** The frame's report of one run as an Execution. */
function executionOf(verdict: RunVerdict): Execution {
  const report = {
    stdout: verdict.stdout,
    stderr: verdict.stderr,
    stdoutDropped: verdict.stdoutDropped,
    stderrDropped: verdict.stderrDropped,
    ms: verdict.ms,
  };
  if (verdict.passed) return { outcome: 'ok', ...report };
  if (verdict.timedOut) return { outcome: 'timeout', error: verdict.message, ...report };
  if (verdict.broken) return { outcome: 'crashed', error: verdict.message, ...report };
  if (verdict.message.startsWith('the answer altered the Python interpreter'))
    return { outcome: 'tampered', error: verdict.message, ...report };
  const outcome = verdict.errorType === 'SystemExit' ? 'exit' : 'exception';
  return {
    outcome,
    error: verdict.message,
    ...(verdict.traceback ? { traceback: verdict.traceback } : {}),
    ...report,
  };
}

export function createSandboxRunner(options: SandboxRunnerOptions = {}): SandboxRunner {
  const container = options.container ?? document.body;
  const url = sandboxUrl(options.origin);
  const stallMs = options.stallMs ?? STALL_MS;
  const startMs = options.startMs ?? START_MS;
  let current: Promise<RunnerFrame> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let disposed = false;

  const replace = (frame?: RunnerFrame) => {
    frame?.destroy();
    current = undefined;
  };

  /** The live frame: started on first need, and started again when the last one stopped answering. */
  const live = async (): Promise<RunnerFrame> => {
    if (current) {
      const frame = await current.catch(() => undefined);
      if (frame && (await frame.ping(stallMs))) return frame;
      replace(frame);
    }
    current = RunnerFrame.start(url, container, startMs);
    return current;
  };

  // A runner or runtime that cannot be had is not a wrong answer: the run throws it (score.ts: unscored).
  const execute = async (request: RunRequest): Promise<RunVerdict> => {
    if (disposed) throw new RunnerUnavailableError(CLOSED.message);
    let files: PyodideFiles | undefined;
    try {
      files = request.language === 'python' ? await fetchPyodideFiles(options.pyodideUrl) : undefined;
    } catch (error) {
      throw new RunnerUnavailableError((error as Error).message);
    }
    let frame: RunnerFrame;
    try {
      frame = await live();
    } catch (error) {
      current = undefined;
      throw new RunnerUnavailableError((error as Error).message);
    }
    if (files) frame.givePythonFiles(files);
    const verdict = await frame.run(request, stallMs);
    if (verdict.broken) replace(frame);
    if (verdict.unavailable) throw new RunnerUnavailableError(verdict.message);
    return verdict;
  };

  const enqueue = (request: RunRequest): Promise<RunVerdict> => {
    const result = queue.then(() => execute(request));
    // One run that could not be run must not stop the runs queued after it.
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    async run(code, tests, timeoutMs) {
      const { passed, message } = await enqueue({ language: 'javascript', code, tests, timeoutMs });
      return { passed, message };
    },
    async execute({ language, code, tests = '', timeoutMs }: ExecuteRequest): Promise<Execution> {
      const verdict =
        language === 'javascript'
          ? await enqueue({ language, code, tests, timeoutMs })
          : await enqueue({
              language,
              program: tests ? `${code}\n\n${tests}\n` : code,
              stdin: '',
              exitEnds: true,
              timeoutMs,
            });
      return executionOf(verdict);
    },
    async runPython(run: PythonRun, timeoutMs: number): Promise<PythonVerdict> {
      const { passed, message, stdout } = await enqueue({
        language: 'python',
        program: run.program,
        stdin: run.stdin ?? '',
        exitEnds: run.expectedStdout !== undefined,
        timeoutMs,
      });
      return { passed, message, stdout };
    },
    dispose() {
      disposed = true;
      void current?.then(
        (frame) => frame.destroy(),
        () => undefined,
      );
      current = undefined;
    },
  };
}
