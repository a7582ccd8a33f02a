import type {
  AppConfig,
  ChatCompletionChunk,
  ChatCompletionRequestStreaming,
  InitProgressReport,
} from '@mlc-ai/web-llm';
import type { MlcCache, MlcEngineConfig, MlcEngineLike } from '../../../../workers/engines/webllm.ts';

/**
 * Stands in for web-llm's MLCEngine at the lowest layer (no GPU): the same methods, progress reports in the
 * exact text format web-llm 0.2.86's runtime writes, stream chunks of the real shape, and interruption
 * checked before each decode step as MLCEngine does.
 */
export interface FakeScript {
  /** Shards and bytes of the simulated download. */
  shards?: number;
  totalBytes?: number;
  /** Thrown by reload() after the progress reports (the nth reload, 1-based; default every reload). */
  reloadError?: () => unknown;
  reloadErrorOn?: number;
  /** Pieces the model "decodes". */
  tokens?: string[];
  /** Thrown by the stream after this many tokens. */
  streamErrorAfter?: number;
  streamError?: () => unknown;
  /** Called before each decode step (lets a test abort mid-stream). */
  onDecode?: (index: number) => void;
}

export function webLlmError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** web-llm's own DeviceLostError message (lib/index.js, class DeviceLostError). */
export const DEVICE_LOST_MESSAGE =
  'The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM). ' +
  'To resolve this, try reloading with a model that has fewer parameters or uses a smaller context length.';

export class FakeMlcEngine implements MlcEngineLike {
  readonly reloads: string[] = [];
  readonly requests: ChatCompletionRequestStreaming[] = [];
  readonly appConfigs: AppConfig[] = [];
  interrupts = 0;
  unloads = 0;
  private interruptSignal = false;
  private readonly progress: (report: InitProgressReport) => void;

  constructor(
    config: MlcEngineConfig,
    private readonly script: FakeScript = {},
  ) {
    this.progress = config.initProgressCallback;
    this.appConfigs.push(config.appConfig);
  }

  setAppConfig(appConfig: AppConfig): void {
    this.appConfigs.push(appConfig);
  }

  async reload(modelId: string): Promise<void> {
    this.reloads.push(modelId);
    const appConfig = this.appConfigs.at(-1);
    if (!appConfig?.model_list.some((r) => r.model_id === modelId)) {
      throw webLlmError(
        'ModelNotFoundError',
        `Cannot find model record in appConfig for ${modelId}. Please check if the model ID is correct and included in the model_list configuration.`,
      );
    }
    const shards = this.script.shards ?? 4;
    const total = this.script.totalBytes ?? 400 * 1024 * 1024;
    this.progress({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' });
    for (let i = 1; i <= shards; i++) {
      const fetched = (total * i) / shards;
      const elapsed = i * 5;
      let text = `Fetching param cache[${i}/${shards}]: `;
      text += `${Math.ceil(fetched / (1024 * 1024))}MB fetched. `;
      text += `${Math.floor((fetched * 100) / total)}% completed, `;
      text += `${elapsed} secs elapsed.`;
      text += ' It can take a while when we first visit this page to populate the cache.';
      text += ' Later refreshes will become faster.';
      this.progress({ progress: fetched / total, timeElapsed: elapsed, text });
      await Promise.resolve();
    }
    this.progress({
      progress: 0.5,
      timeElapsed: 22,
      text: 'Loading GPU shader modules[60/120]: 50% completed, 22 secs elapsed.',
    });
    if (
      this.script.reloadError &&
      (this.script.reloadErrorOn ?? this.reloads.length) === this.reloads.length
    ) {
      throw this.script.reloadError();
    }
    this.progress({ progress: 1, timeElapsed: 23, text: 'Finish loading on WebGPU - google' });
  }

  async unload(): Promise<void> {
    this.unloads++;
  }

  interruptGenerate(): Promise<void> {
    this.interrupts++;
    this.interruptSignal = true;
    return Promise.resolve();
  }

  readonly chat = {
    completions: {
      create: async (
        request: ChatCompletionRequestStreaming,
      ): Promise<AsyncIterable<ChatCompletionChunk>> => {
        this.requests.push(structuredClone(request));
        this.interruptSignal = false;
        return this.stream(request);
      },
    },
  };

  private async *stream(request: ChatCompletionRequestStreaming): AsyncGenerator<ChatCompletionChunk> {
    const tokens = this.script.tokens ?? ['{"steps":', '[]}'];
    const base = { id: 'chatcmpl-fake', model: 'fake', object: 'chat.completion.chunk' as const, created: 0 };
    let produced = 0;
    let finish: 'stop' | 'length' | 'abort' = 'stop';
    for (const [index, token] of tokens.entries()) {
      this.script.onDecode?.(index);
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (this.interruptSignal) {
        finish = 'abort';
        break;
      }
      if (this.script.streamErrorAfter === index && this.script.streamError) throw this.script.streamError();
      if (request.max_tokens != null && produced >= request.max_tokens) {
        finish = 'length';
        break;
      }
      produced++;
      yield {
        ...base,
        choices: [
          { index: 0, delta: { role: 'assistant', content: token }, finish_reason: null, logprobs: null },
        ],
      };
    }
    yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] };
    if (request.stream_options?.include_usage) {
      yield {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 42,
          completion_tokens: produced,
          total_tokens: 42 + produced,
          extra: {
            e2e_latency_s: 0.5,
            prefill_tokens_per_s: 840,
            decode_tokens_per_s: 31.5,
            time_to_first_token_s: 0.05,
            time_per_output_token_s: 0.03,
          },
        },
      };
    }
  }
}

export class FakeCache implements MlcCache {
  readonly cached = new Set<string>();
  readonly calls: Array<{ op: 'has' | 'delete'; modelId: string; appConfig?: AppConfig }> = [];

  async hasModelInCache(modelId: string, appConfig?: AppConfig): Promise<boolean> {
    this.calls.push({ op: 'has', modelId, ...(appConfig ? { appConfig } : {}) });
    if (!appConfig?.model_list.some((r) => r.model_id === modelId)) {
      throw webLlmError('ModelNotFoundError', `Cannot find model record in appConfig for ${modelId}.`);
    }
    return this.cached.has(modelId);
  }

  async deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig): Promise<void> {
    this.calls.push({ op: 'delete', modelId, ...(appConfig ? { appConfig } : {}) });
    this.cached.delete(modelId);
  }
}
