import { isRecord } from './is-record';
import { ProviderRefusal, refusal } from './provider-refusal';

/** One function the model may call. */
export interface ToolDefinition {
  name: string;
  /** The JSON Schema of the arguments, as sent. */
  parameters: unknown;
}

/** How the request lets the model use its tools. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The tools and tool choice of a request, or why they are refused. */
export type ToolOptions = { tools: ToolDefinition[]; toolChoice: ToolChoice } | ProviderRefusal;

/** Reads `tools` and `tool_choice` as the provider does. */
export function readToolOptions(body: Record<string, unknown>): ToolOptions {
  const tools: ToolDefinition[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return refusal(400, "Invalid type for 'tools': expected an array.", 'tools');
    for (const [index, tool] of body.tools.entries()) {
      const fn = isRecord(tool) && tool.type === 'function' ? tool.function : undefined;
      if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') {
        return refusal(400, `Invalid 'tools[${index}]': expected {type:"function", function:{name, parameters}}.`, 'tools');
      }
      tools.push({ name: fn.name, parameters: fn.parameters });
    }
  }
  const choice = body.tool_choice;
  if (choice === undefined || choice === null || choice === 'auto') return { tools, toolChoice: 'auto' };
  if (choice === 'none') return { tools, toolChoice: choice };
  if (tools.length === 0) return refusal(400, "'tool_choice' is only allowed when 'tools' are given.", 'tool_choice');
  if (choice === 'required') return { tools, toolChoice: choice };
  const name = isRecord(choice) && choice.type === 'function' && isRecord(choice.function) ? choice.function.name : undefined;
  if (typeof name !== 'string') return refusal(400, "Invalid value for 'tool_choice'.", 'tool_choice');
  if (!tools.some((tool) => tool.name === name)) {
    return refusal(400, `Invalid 'tool_choice': no tool named "${name}" in 'tools'.`, 'tool_choice');
  }
  return { tools, toolChoice: { name } };
}
