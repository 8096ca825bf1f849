import Ajv, { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

let validator: ValidateFunction | undefined;

/**
 * The compose-spec JSON schema (the one `docker compose config` checks against), as shipped in
 * the dclint package (schemas/compose.schema.json, a copy of compose-spec's schema/compose-spec.json).
 */
function composeValidator(): ValidateFunction {
  if (!validator) {
    const file = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // The file names draft-07 by an https address ajv does not know it by; the draft is ajv's default.
    delete schema.$schema;
    validator = new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  return validator;
}

/** Reads a compose file as docker compose does: YAML 1.2 with merge keys (`<<: *anchor`). */
export function readCompose(text: string): Record<string, unknown> {
  return parse(text, { merge: true }) as Record<string, unknown>;
}

/** Schema errors of a parsed compose file ("/services/edge/restart must be string"); empty when valid. */
export function composeErrors(compose: unknown): string[] {
  const validate = composeValidator();
  if (validate(compose)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`,
  );
}
