/**
 * The repair prompt: a draft that broke its contract goes back to the model with what was wrong
 * (the issues), what is expected (the schema's shape as JSON Schema) and what it answered, each
 * bounded so a huge or garbled answer cannot grow the prompt without limit.
 *
 * The original prompt comes first, unchanged: it carries the task and its `KEY: value` headers,
 * which the model (and the emulator) read as before. The repair block follows it.
 */
import { z } from "zod";
import { formatIssues, type LlmIssue } from "./contract.ts";

/** Longest excerpt of the bad answer quoted back. */
export const REPAIR_QUOTE_CHARS = 2000;
/** Longest schema text quoted. */
const REPAIR_SCHEMA_CHARS = 3000;

/** The schema as compact JSON Schema (what JSON modes and people read), or undefined when it has none. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> | undefined {
  try {
    const json = z.toJSONSchema(schema, { unrepresentable: "any", io: "output" }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  } catch {
    return undefined;
  }
}

/** Drops what cannot travel in a prompt: NULs and other C0 controls, lone surrogates. */
function printable(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "\ufffd")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

function excerpt(text: string, max: number): string {
  const clean = printable(text);
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max)}\n[… ${clean.length - max} more characters not shown]`;
}

interface RepairInput {
  /** The prompt the bad answer replied to. */
  prompt: string;
  issues: readonly LlmIssue[];
  /** The answer's text ("" when there was none). */
  badOutput: string;
  schema: z.ZodType;
  /** 1 for the first repair, 2 for the second. */
  repair: number;
}

export function repairPrompt(input: RepairInput): string {
  const shape = jsonSchemaOf(input.schema);
  const shapeText = shape ? excerpt(JSON.stringify(shape), REPAIR_SCHEMA_CHARS) : "(see the instructions above)";
  return [
    input.prompt.trimEnd(),
    "",
    `REPAIR: ${input.repair}`,
    "",
    "Your previous answer to the task above was rejected by the JSON contract. Problems found:",
    ...formatIssues(input.issues).map((line) => `- ${line}`),
    "",
    "The answer must be one JSON object matching this JSON Schema (no other keys, every required key present):",
    shapeText,
    "",
    input.badOutput.trim() === "" ? "Your previous answer was empty." : "Your previous answer was:",
    ...(input.badOutput.trim() === "" ? [] : ["<<<", excerpt(input.badOutput, REPAIR_QUOTE_CHARS), ">>>"]),
    "",
    "Answer again with the corrected JSON object only: no Markdown fence, no text before or after it.",
  ].join("\n");
}
