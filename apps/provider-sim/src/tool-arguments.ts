import { isRecord } from './is-record';

/** Used for a location-like argument when the text names no place ("... in Benghazi"). */
export const DEFAULT_PLACE = 'Tripoli';

/**
 * Deterministic arguments for a call of a tool, as a JSON string: every property of the tool's
 * JSON Schema `parameters` gets a sample value of its type (the first enum value when there is one);
 * a string property named like a location gets the place the text names.
 */
export function toolArguments(parameters: unknown, text: string): string {
  const properties = isRecord(parameters) && isRecord(parameters.properties) ? parameters.properties : {};
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) args[name] = sampleValue(name, schema, text);
  return JSON.stringify(args);
}

function sampleValue(name: string, schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return /location|city|place/i.test(name) ? placeIn(text) : 'example';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

function placeIn(text: string): string {
  const match = /\bin\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/.exec(text);
  return match ? match[1] : DEFAULT_PLACE;
}
