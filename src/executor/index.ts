export { checkConcurrency, EndpointLimits, endpointOf, Semaphore } from './concurrency.ts';
export { assembleMessages, type ContextInput } from './context.ts';
export { criticalPath, dependencies, dependents, downstream, readySteps, resolveSees, waves } from './dag.ts';
export {
  DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
  DEFAULT_STEP_TIMEOUT_MS,
  type ExecutorOptions,
  PARTIAL_FLUSH_MS,
  type ResumeOptions,
  type RunHandle,
  type RunOptions,
  resumeRun,
  startRun,
} from './executor.ts';
export { RunPersistence } from './persistence.ts';
export {
  abortableSleep,
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type RetryDecision,
  type RetryPolicy,
  retryPolicy,
} from './retry.ts';
export { estimatePromptTokens, estimateTokens, priceOf, requestSpend } from './spend.ts';
export { copyStatus, describeWait, finalStepIndex, queuedStatus, totalsOf } from './status.ts';
export {
  openRunStore,
  RUNS_DB_NAME,
  type RunRecord,
  type RunStore,
  type RunsDB,
  type StepRecord,
  snapshotPool,
} from './store.ts';
export type {
  Conductor,
  ExecutorEvent,
  ReplanInput,
  RequestOutcome,
  RequestSpend,
  RunLimits,
  RunResult,
  RunStatus,
  RunTotals,
  StepExecutorEvent,
  StepState,
  StepStatus,
  StepTimings,
  StepWait,
  Usage,
} from './types.ts';
