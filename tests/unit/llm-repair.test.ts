/**
 * The LLM boundary without a network: how a broken answer is described, what the repair prompt
 * carries (and how big it can get), and how many calls a bad model costs.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { HookAudit, ScriptDraft } from "../../shared/contracts/llm.ts";
import { isRetriable } from "../../shared/errors.ts";
import { ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { generateValidated, type LlmCallEvent } from "../../shared/providers/llm/boundary.ts";
import { checkAnswer, formatIssues, LlmContractError, LlmSafetyStopError } from "../../shared/providers/llm/contract.ts";
import { REPAIR_QUOTE_CHARS, repairPrompt } from "../../shared/providers/llm/repair.ts";
import type { LlmCompletion, TextModel } from "../../shared/providers/llm/types.ts";

const stop = (text: string, extra: Partial<LlmCompletion> = {}): LlmCompletion => ({ text, stop: "stop", reason: "STOP", ...extra });
const AUDIT_PROMPT = "TASK: hook_audit\nLANGUAGE: en\nHOOK: Did you know?\n\nScore it.";

/** A model that answers from a list, recording every prompt it was sent. */
function scripted(answers: LlmCompletion[]): TextModel & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    provider: "fake",
    model: "fake-1",
    prompts,
    async complete(prompt) {
      prompts.push(prompt);
      const next = answers.shift();
      if (!next) throw new Error("no more answers");
      return next;
    },
  };
}

describe("issues", () => {
  test("unknown keys are named one by one, missing fields as missing, types as Zod says", () => {
    const checked = checkAnswer(stop('{"score":"high","verdict":"pass","extra":1}'), HookAudit);
    expect(checked.ok).toBe(false);
    const lines = formatIssues(checked.ok ? [] : checked.issues);
    expect(lines).toContain("verdict: unknown key: remove it");
    expect(lines).toContain("extra: unknown key: remove it");
    expect(lines).toContain("reasons: required field is missing (array)");
    expect(lines.some((l) => l.startsWith("score: ") && l.includes("number"))).toBe(true);
  });

  test("text that is not JSON says why: cut off, fenced, prose first, empty", () => {
    const message = (completion: LlmCompletion) => {
      const checked = checkAnswer(completion, HookAudit);
      return checked.ok ? "" : checked.issues[0]!.message;
    };
    expect(message(stop('{"score": 0.', { stop: "max_tokens", reason: "MAX_TOKENS" }))).toContain("cut off at the output token limit");
    expect(message(stop('```json\n{"score":1,"reasons":[]}\n```'))).toContain("Markdown code fence");
    expect(message(stop('Sure: {"score":1,"reasons":[]}'))).toContain("prose before the JSON");
    expect(message(stop("", { stop: "empty", reason: "no candidates" }))).toContain("no candidate came back");
  });

  test("NUL, replacement characters and lone surrogates are refused even where the schema takes any string", () => {
    const checked = checkAnswer(stop('{"score":0.5,"reasons":["ok\\u0000","\\ud800x"]}'), HookAudit);
    expect(checked.ok).toBe(false);
    expect(formatIssues(checked.ok ? [] : checked.issues)).toEqual([
      "reasons.0: contains control characters or broken Unicode: write plain text",
      "reasons.1: contains control characters or broken Unicode: write plain text",
    ]);
  });

  test("a valid answer passes with its parsed value", () => {
    expect(checkAnswer(stop('{"score":0.9,"reasons":["asks"]}'), HookAudit)).toEqual({ ok: true, value: { score: 0.9, reasons: ["asks"] } });
  });

  test("issue lines are bounded in number and length", () => {
    const issues = Array.from({ length: 50 }, (_, i) => ({ path: `a.${i}`, message: "x".repeat(1000) }));
    const lines = formatIssues(issues);
    expect(lines).toHaveLength(21);
    expect(lines.at(-1)).toBe("(and 30 more)");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(340);
  });
});

describe("repair prompt", () => {
  test("keeps the original prompt first and quotes the issues, the schema's shape and the bad answer", () => {
    const prompt = repairPrompt({
      prompt: AUDIT_PROMPT,
      issues: [{ path: "score", message: "expected number, received string" }],
      badOutput: '{"score":"high","reasons":[]}',
      schema: HookAudit,
      repair: 1,
    });
    expect(prompt.startsWith(AUDIT_PROMPT)).toBe(true);
    expect(prompt).toContain("REPAIR: 1");
    expect(prompt).toContain("- score: expected number, received string");
    expect(prompt).toContain('"additionalProperties":false');
    expect(prompt).toContain('"required":["score","reasons"]');
    expect(prompt).toContain('<<<\n{"score":"high","reasons":[]}\n>>>');
  });

  test("a huge or garbled answer is quoted bounded and printable", () => {
    const bad = `\u0000${"x".repeat(50_000)}`;
    const prompt = repairPrompt({
      prompt: AUDIT_PROMPT,
      issues: [{ path: "(answer)", message: "not valid JSON" }],
      badOutput: bad,
      schema: ScriptDraft,
      repair: 2,
    });
    expect(prompt.length).toBeLessThan(AUDIT_PROMPT.length + REPAIR_QUOTE_CHARS + 4000);
    expect(prompt).toContain(`[… ${50_001 - REPAIR_QUOTE_CHARS} more characters not shown]`);
    expect(prompt).not.toContain("\u0000");
  });

  test("an empty answer says so instead of quoting nothing", () => {
    const prompt = repairPrompt({ prompt: AUDIT_PROMPT, issues: [{ path: "(answer)", message: "empty" }], badOutput: "", schema: HookAudit, repair: 1 });
    expect(prompt).toContain("Your previous answer was empty.");
    expect(prompt).not.toContain("<<<");
  });
});

describe("generateValidated", () => {
  test("a bad first answer is repaired with one more call, whose prompt carries the issues", async () => {
    const model = scripted([stop('{"score":"high","reasons":[]}'), stop('{"score":0.8,"reasons":["asks"]}')]);
    const events: LlmCallEvent[] = [];
    const result = await generateValidated(model, AUDIT_PROMPT, HookAudit, { temperature: 0 }, { onCall: (e) => events.push(e) });
    expect(result.value).toEqual({ score: 0.8, reasons: ["asks"] });
    expect(result.calls).toBe(2);
    expect(model.prompts[0]).toBe(AUDIT_PROMPT);
    expect(model.prompts[1]).toContain("- score: Invalid input: expected number, received string");
    expect(events.map((e) => [e.kind, e.attempt, e.outcome])).toEqual([["call", 0, "invalid"], ["repair", 1, "valid"]]);
  });

  test("two failed repairs end in a non-retriable LlmContractError with the last issues", async () => {
    const model = scripted([stop("nope"), stop('{"score":2,"reasons":[]}'), stop('{"score":0.5}')]);
    const error = await generateValidated(model, AUDIT_PROMPT, HookAudit, { temperature: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmContractError);
    expect(isRetriable(error)).toBe(false);
    expect(error.calls).toBe(3);
    expect(model.prompts).toHaveLength(3);
    expect(formatIssues(error.issues)).toEqual(["reasons: required field is missing (array)"]);
    expect(error.message).toContain("after 2 repairs (3 calls)");
    expect(error.raw).toBe('{"score":0.5}');
  });

  test("a safety stop is not repaired", async () => {
    const model = scripted([{ text: "", stop: "safety", reason: "SAFETY" }, stop('{"score":1,"reasons":[]}')]);
    const error = await generateValidated(model, AUDIT_PROMPT, HookAudit, { temperature: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmSafetyStopError);
    expect(isRetriable(error)).toBe(false);
    expect(error.message).toContain("SAFETY");
    expect(model.prompts).toHaveLength(1);
  });

  test("a provider outage passes through as retriable, whatever the attempt", async () => {
    const model: TextModel = {
      provider: "fake",
      model: "m",
      complete: () => Promise.reject(new ProviderUnavailableError("fake", "503")),
    };
    const error = await generateValidated(model, AUDIT_PROMPT, HookAudit, { temperature: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(isRetriable(error)).toBe(true);
  });

  test("a refined contract is repaired like a schema one", async () => {
    const even = z.object({ n: z.number() }).strict().refine((v) => v.n % 2 === 0, { path: ["n"], message: "must be even" });
    const model = scripted([stop('{"n":3}'), stop('{"n":4}')]);
    expect((await generateValidated(model, "TASK: x", even, { temperature: 0 })).value).toEqual({ n: 4 });
    expect(model.prompts[1]).toContain("- n: must be even");
  });
});
