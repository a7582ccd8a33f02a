import { IncrementalPlanParser, type ParseOptions, PlanError, type Step } from '../shared/plan/index.ts';

/**
 * Turns the conductor's token stream into steps for the executor: each step is yielded the moment its
 * JSON object closes, so step 0 can start while the conductor still writes step 2. Throws a PlanError on
 * the first invalid step, or when the finished text is not a valid plan; steps that only the final parse
 * finds (the paper's list format) are yielded at the end.
 */
export async function* stepsFromTokens(
  tokens: AsyncIterable<string>,
  options: ParseOptions,
  parser = new IncrementalPlanParser(options),
): AsyncGenerator<Step> {
  for await (const chunk of tokens) {
    for (const event of parser.push(chunk)) {
      if (event.type === 'error') throw new PlanError(event.issues);
      yield event.step;
    }
  }
  const result = parser.end();
  if (!result.ok) throw new PlanError(result.issues, result.message);
  for (const step of result.plan.steps.slice(parser.emitted)) yield step;
}
