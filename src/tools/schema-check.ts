/**
 * A tool's arguments checked against the JSON Schema its server gave, with zod's `fromJSONSchema`: no
 * code is compiled (the page's CSP allows no `eval`, which Ajv, the SDK's default, needs). The SDK's
 * client checks a tool's structured output with the same validator.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';

type Check = (input: unknown) => { ok: true } | { ok: false; error: string };

/** A checker for `schema`; a schema zod cannot read checks nothing but that the input is an object. */
export function schemaCheck(schema: Record<string, unknown>): Check {
  let parser: z.ZodType | undefined;
  try {
    parser = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    parser = undefined;
  }
  return (input) => {
    if (!parser) {
      return input !== null && typeof input === 'object' && !Array.isArray(input)
        ? { ok: true }
        : { ok: false, error: 'The arguments must be a JSON object.' };
    }
    const result = parser.safeParse(input);
    return result.success ? { ok: true } : { ok: false, error: z.prettifyError(result.error) };
  };
}

/** The SDK's validator interface over `schemaCheck`. */
export const zodSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: Parameters<jsonSchemaValidator['getValidator']>[0]) {
    const check = schemaCheck(schema as Record<string, unknown>);
    return (input: unknown) => {
      const result = check(input);
      return result.ok
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: result.error };
    };
  },
};
