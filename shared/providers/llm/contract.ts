/**
 * The LLM boundary's check: a completion's text either parses as JSON that satisfies the caller's
 * Zod schema, or it yields issues written for the model to act on (and for the dead letter).
 */
import type { z } from "zod";
import { NonRetriableError } from "../../errors.ts";
import type { LlmCompletion } from "./types.ts";

/** One problem with an answer: where (a dotted path, `(answer)` for the whole text) and what. */
export interface LlmIssue {
  path: string;
  message: string;
}

const ANSWER = "(answer)";
const ROOT = "(root)";
const MAX_ISSUES = 20;
const MAX_MESSAGE = 240;

/**
 * The model answered, but not with what the contract asks for, and repairs (if any) did not fix
 * it. Not retriable: asking the same thing again is what the repairs already did.
 */
export class LlmContractError extends NonRetriableError {
  readonly issues: readonly LlmIssue[];
  /** The last answer's text, kept for the log. */
  readonly raw?: string;
  /** Calls made to the provider for this answer, repairs included. */
  readonly calls: number;

  constructor(message: string, issues: readonly LlmIssue[], raw?: string, calls = 1) {
    super(message);
    this.name = "LlmContractError";
    this.issues = issues;
    this.raw = raw;
    this.calls = calls;
  }
}

/**
 * A safety filter stopped the model or it refused. Never repaired: the content goes the safety
 * path (the task fails with the provider's reason).
 */
export class LlmSafetyStopError extends NonRetriableError {
  readonly reason: string;

  constructor(provider: string, reason: string) {
    super(`${provider} stopped the answer for safety (${reason})`);
    this.name = "LlmSafetyStopError";
    this.reason = reason;
  }
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? ROOT : path.map(String).join(".");
}

/** Zod issues as the model should read them: unknown keys one by one, missing fields named as such. */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[]): LlmIssue[] {
  const out: LlmIssue[] = [];
  for (const issue of issues) {
    const at = pathOf(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path: at === ROOT ? key : `${at}.${key}`, message: "unknown key: remove it" });
    } else if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
      out.push({ path: at, message: `required field is missing (${issue.expected})` });
    } else {
      out.push({ path: at, message: issue.message });
    }
  }
  return out;
}

/** `path: message` lines, bounded in count and length: what a repair prompt and a dead letter quote. */
export function formatIssues(issues: readonly LlmIssue[]): string[] {
  const lines = issues.slice(0, MAX_ISSUES).map((i) => `${clip(i.path, 80)}: ${clip(i.message.replace(/\s+/g, " "), MAX_MESSAGE)}`);
  if (issues.length > MAX_ISSUES) lines.push(`(and ${issues.length - MAX_ISSUES} more)`);
  return lines;
}

// C0 controls other than tab, newline and carriage return; U+FFFD (a decoder's replacement for
// bytes that were not text); lone surrogates. Postgres refuses \u0000 in jsonb, and none of them
// belongs in narration a voice reads.
const BROKEN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function brokenStrings(value: unknown, path: string[], out: LlmIssue[]): void {
  if (out.length >= MAX_ISSUES) return;
  if (typeof value === "string") {
    if (BROKEN_TEXT.test(value)) out.push({ path: pathOf(path), message: "contains control characters or broken Unicode: write plain text" });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => brokenStrings(item, [...path, String(i)], out));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (BROKEN_TEXT.test(key)) out.push({ path: pathOf([...path, key]), message: "key contains control characters or broken Unicode" });
      brokenStrings(item, [...path, key], out);
    }
  }
}

/** Why a text is not JSON, in words that tell the model what to change. */
function notJsonIssue(completion: LlmCompletion, parseError: string): LlmIssue {
  const text = completion.text.trim();
  if (completion.stop === "max_tokens") {
    return {
      path: ANSWER,
      message: `not valid JSON: the answer was cut off at the output token limit (${completion.reason}); answer with shorter, complete JSON`,
    };
  }
  if (text.startsWith("```") || text.startsWith("~~~")) {
    return { path: ANSWER, message: "not valid JSON: it is wrapped in a Markdown code fence; answer with the bare JSON object only" };
  }
  const brace = text.search(/[[{]/);
  if (brace > 0) return { path: ANSWER, message: "not valid JSON: there is prose before the JSON; answer with the JSON object only" };
  if (brace === 0 && !/[}\]]$/.test(text)) {
    return { path: ANSWER, message: `not valid JSON: the object is not closed or text follows it (${clip(parseError, 120)})` };
  }
  return { path: ANSWER, message: `not valid JSON (${clip(parseError, 120)})` };
}

type CheckedAnswer<T> = { ok: true; value: T } | { ok: false; issues: LlmIssue[] };

/**
 * Checks a completion (not a safety stop: the caller handles those first) against the schema.
 * Pure: no I/O, never throws.
 */
export function checkAnswer<T>(completion: LlmCompletion, schema: z.ZodType<T>): CheckedAnswer<T> {
  if (completion.text.trim() === "") {
    const why = completion.stop === "empty" ? "no candidate came back" : `finish reason ${completion.reason}`;
    return { ok: false, issues: [{ path: ANSWER, message: `the answer is empty (${why}); answer with the JSON object` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(completion.text);
  } catch (error) {
    return { ok: false, issues: [notJsonIssue(completion, error instanceof Error ? error.message : String(error))] };
  }
  const broken: LlmIssue[] = [];
  brokenStrings(json, [], broken);
  const parsed = schema.safeParse(json);
  if (parsed.success && broken.length === 0) return { ok: true, value: parsed.data };
  return { ok: false, issues: [...broken, ...(parsed.success ? [] : fromZodIssues(parsed.error.issues))] };
}
