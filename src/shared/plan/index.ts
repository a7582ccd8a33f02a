export { IncrementalPlanParser, type ParsedStepEvent } from './incremental.ts';
export {
  DEFAULT_MAX_TASK_LENGTH,
  DEFAULT_MAX_THOUGHT_LENGTH,
  type PlanJsonSchemaOptions,
  planJsonSchema,
} from './json-schema.ts';
export {
  type PlanLimits,
  type PlanMode,
  type PoolValidateOptions,
  planLimitsFor,
  plannedPool,
  poolValidateOptions,
} from './limits.ts';
export { type ParseOptions, type ParseResult, parsePlan } from './parse.ts';
export {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  type Files,
  FilesSchema,
  type Plan,
  PlanSchema,
  type Sees,
  SeesSchema,
  type Step,
  StepSchema,
} from './schema.ts';
export { type PlanTools, takesTools, validateTools } from './tools.ts';
export {
  allowedWorkers,
  PlanError,
  type PlanIssue,
  type PlanIssueCode,
  type PlanResult,
  planOrThrow,
  type StepResult,
  type ValidateOptions,
  validatePlan,
  validateStep,
} from './validate.ts';
