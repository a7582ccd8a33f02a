import { expose, proxy, releaseProxy } from 'comlink';
import type { BrowserModelHost } from '../src/shared/browser-model.ts';
import type { ConductorListener, ModelDownloadReport, ModelRef } from '../src/shared/conductor-api.ts';
import { EngineError } from '../src/shared/engine-errors.ts';
import {
  installDownloadReporter,
  localPlanningFetch,
  reportUsage,
  setDownloadListener,
} from './download-reporter.ts';
import { EngineHost, type HostDevice } from './engine-host.ts';
import type { ConductorEngine } from './engines/engine.ts';
import { createPromptApiEngine } from './engines/prompt-api.ts';
import { createWllamaEngine, wllamaCacheStatus, wllamaDeleteCache } from './engines/wllama.ts';
import { batchTokens } from './token-batches.ts';

/**
 * The conductor thread: the engine host behind comlink. The page imports only the type
 * (`import type { ConductorThreadApi }`); web-llm's engine module is imported lazily, here, when first needed,
 * so the thread's first chunk stays small.
 */

const webLlmEngine = () => import('./engines/webllm.ts');
// The openai SDK it streams with is loaded only when a local server is the conductor (an engine file:
// cached by the service worker once used, not precached with the shell).
const localServerEngine = () =>
  import('./engines/local-server.ts').catch((error: unknown) => {
    throw new EngineError(
      'EngineFailure',
      `Could not load the local server engine's code (${(error as Error).message}): it is fetched the ` +
        'first time it is used, so connect to the network once, then try again.',
    );
  });

/** The page's half of the browser's own model (a comlink proxy), once the bridge has offered it. */
let browserModel: BrowserModelHost | undefined;

async function createEngine(kind: ModelRef['engine']): Promise<ConductorEngine> {
  if (kind === 'wllama') return createWllamaEngine();
  if (kind === 'prompt-api') return createPromptApiEngine({ host: () => browserModel, callback: proxy });
  if (kind === 'local-server') {
    return (await localServerEngine()).createLocalServerEngine({
      fetch: localPlanningFetch(),
      onUsage: reportUsage,
    });
  }
  return (await webLlmEngine()).createWebLlmEngine();
}

const device: HostDevice = {
  async cacheStatus(model) {
    if (model.engine === 'wllama') return wllamaCacheStatus(model.url);
    // Chrome keeps its model: "cached" is Chrome saying it can start a session without a download.
    if (model.engine === 'prompt-api')
      return { cached: (await browserModel?.availability()) === 'available' };
    // Nothing to download: a saved choice is loaded again on start-up when the server answers with it.
    if (model.engine === 'local-server') {
      return { cached: await (await localServerEngine()).serverReady(model, localPlanningFetch()) };
    }
    return (await webLlmEngine()).webLlmCacheStatus(model);
  },
  async deleteCache(model) {
    if (model.engine === 'wllama') return wllamaDeleteCache(model.url);
    if (model.engine === 'local-server' || model.engine === 'prompt-api') return false;
    return (await webLlmEngine()).webLlmDeleteCache(model);
  },
  async serverModels(baseURL) {
    return (await localServerEngine()).listServerModels(baseURL, localPlanningFetch());
  },
};

/** The host plus what only a thread has: a ping, the download reports, and a crash for tests. */
class ConductorThread extends EngineHost {
  /** Answers at once: the bridge uses it to tell a busy thread from a dead one. */
  ping(): 'pong' {
    return 'pong';
  }

  /** For tests of the bridge's recovery: an uncaught error, as a crashing engine would raise. */
  crashForTests(): void {
    setTimeout(() => {
      throw new Error('Crash requested by a test');
    });
  }

  /**
   * Where the thread reports its model downloads (a comlink proxy): the page writes each in the egress
   * ledger. Set by the bridge as soon as it starts the thread, so a reload after a restart is reported too.
   */
  watchDownloads(onDownload: ((report: ModelDownloadReport) => unknown) | undefined): void {
    setDownloadListener(onDownload);
  }

  /** The page's half of the browser's own model: the bridge offers it as soon as it starts the thread. */
  useBrowserModel(host: BrowserModelHost | undefined): void {
    browserModel = host;
  }

  /** Tokens cross to the page in batches (workers/token-batches.ts): a message per token slowed planning. */
  protected override deliverTo(listener: ConductorListener): ConductorListener {
    return batchTokens(listener);
  }

  /** A listener from the page is a comlink proxy with its own port: closed once its stream has ended. */
  protected override releaseListener(listener: ConductorListener): void {
    (listener as unknown as { [releaseProxy]?: () => void })[releaseProxy]?.();
  }
}

export type ConductorThreadApi = ConductorThread;

// Before any engine loads: every model file the thread fetches is reported to the page's ledger.
installDownloadReporter();

expose(new ConductorThread(createEngine, device));
