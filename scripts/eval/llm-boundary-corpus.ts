/**
 * The malformed-output corpus (tests/fixtures/llm-malformed.jsonl) and its replay through the
 * Gemini emulator: each entry's recorded answer is served first (fault `serve`), then the model
 * answers normally (a repair that works) or the bad answer is served again (`still_bad`), and the
 * router's answer is classified: repaired into a valid value, or stopped with a typed,
 * non-retriable error that the stage runner dead-letters with its issues.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { LlmRouter } from "../../functions/pipeline/llm-router.ts";
import { scenePlanContract } from "../../functions/pipeline/stages/plan.ts";
import { hookAuditPrompt, scenePlanPrompt, scriptPrompt } from "../../functions/pipeline/stages/prompts.ts";
import { HookAudit, type LlmTask, ScriptDraft } from "../../shared/contracts/llm.ts";
import { isRetriable } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logging/logger.ts";
import { formatIssues, LlmContractError, LlmSafetyStopError } from "../../shared/providers/llm/contract.ts";

export const CORPUS_FILE = path.resolve(import.meta.dir, "../../tests/fixtures/llm-malformed.jsonl");

/** One recorded bad answer: which task it pretends to answer, and what the repair answer is. */
export const CorpusEntry = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  task: z.enum(["script", "hook_audit", "plan"]),
  kind: z.string().min(1),
  answer: z.object({
    text: z.string().optional(),
    finishReason: z.string().optional(),
    blockReason: z.string().optional(),
    empty: z.boolean().optional(),
  }).strict(),
  /** `good`: the model answers well when asked to repair; `still_bad`: it repeats the bad answer; `none`: a safety stop, never repaired. */
  repair: z.enum(["good", "still_bad", "none"]),
  note: z.string(),
}).strict();
export type CorpusEntry = z.infer<typeof CorpusEntry>;

export function loadCorpus(file = CORPUS_FILE): CorpusEntry[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line, i) => {
    const parsed = CorpusEntry.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.message}`);
    return parsed.data;
  });
}

const PLAN_NARRATION = "Every day the ocean rises and falls twice along most coasts, and the reason is a tug of war in space. The Moon pulls the " +
  "water nearest to it a little harder than the Earth beneath, so the sea bulges toward it. On the far side the Earth is " +
  "pulled away from the water, which makes a second bulge.";

const ROUTER_TASK: Record<CorpusEntry["task"], LlmTask> = { script: "script", hook_audit: "critic", plan: "plan" };

/** The real prompt and contract of the entry's task; `nonce` keeps each replay's cache keys its own. */
export function taskCall(entry: CorpusEntry, nonce: string) {
  const tag = `${entry.id} ${nonce}`;
  switch (entry.task) {
    case "script":
      return {
        prompt: scriptPrompt({ language: "en", topic: `How tides work (${tag})`, context: [], candidate: 1, round: 0, words: { min: 95, max: 150 } }),
        schema: ScriptDraft as z.ZodType<unknown>,
        params: { temperature: 0.5 },
      };
    case "hook_audit":
      return {
        prompt: hookAuditPrompt({ language: "en", hook: `Did you know the Moon moves 2 oceans every day? (${tag})` }),
        schema: HookAudit as z.ZodType<unknown>,
        params: { temperature: 0 },
      };
    case "plan": {
      const narration = `${PLAN_NARRATION} Case ${tag}.`;
      return {
        prompt: scenePlanPrompt({ language: "en", style: "drift motion", narration }),
        schema: scenePlanContract(narration) as z.ZodType<unknown>,
        params: { temperature: 0.4 },
      };
    }
  }
}

export type ReplayOutcome = "repaired" | "dead_letter" | "safety_stop" | "crash";

export interface ReplayResult {
  id: string;
  task: CorpusEntry["task"];
  kind: string;
  expected: CorpusEntry["repair"];
  outcome: ReplayOutcome;
  /** Requests the emulator received for this entry. */
  calls: number;
  /** The last issues (dead letters), or the safety reason. */
  detail: string[];
  /** The reason a stage runner would record for the failed task. */
  reason?: string;
  /** Stopped at the boundary as the corpus says it should be. */
  stopped: boolean;
}

export interface ReplayContext {
  router: LlmRouter;
  dimensionId: string;
  log: Logger;
  /** Arms a fault on the emulator. */
  armFault(fault: Record<string, unknown>): Promise<void>;
  /** Requests the Gemini emulator has served so far. */
  geminiCalls(): number;
  nonce: string;
}

/** How many times the recorded answer is served: once, or to the first call and both repairs. */
const SERVES: Record<CorpusEntry["repair"], number> = { good: 1, still_bad: 3, none: 1 };
/** The calls each kind of entry should cost: the call plus one repair, plus two, or the call alone. */
export const EXPECTED_CALLS: Record<CorpusEntry["repair"], number> = { good: 2, still_bad: 3, none: 1 };

export async function replayEntry(ctx: ReplayContext, entry: CorpusEntry): Promise<ReplayResult> {
  const call = taskCall(entry, ctx.nonce);
  await ctx.armFault({ service: "gemini", kind: "serve", count: SERVES[entry.repair], answer: entry.answer });
  const before = ctx.geminiCalls();
  const base = { id: entry.id, task: entry.task, kind: entry.kind, expected: entry.repair };
  let outcome: ReplayOutcome;
  let detail: string[] = [];
  let reason: string | undefined;
  try {
    const value = await ctx.router.generate({ task: ROUTER_TASK[entry.task], dimensionId: ctx.dimensionId, ...call, log: ctx.log });
    outcome = call.schema.safeParse(value).success ? "repaired" : "crash";
  } catch (error) {
    if (error instanceof LlmContractError && !isRetriable(error) && error.issues.length > 0) {
      outcome = "dead_letter";
      detail = formatIssues(error.issues);
      reason = error.message;
    } else if (error instanceof LlmSafetyStopError && !isRetriable(error)) {
      outcome = "safety_stop";
      detail = [error.reason];
      reason = error.message;
    } else {
      outcome = "crash";
      detail = [error instanceof Error ? `${error.name}: ${error.message}` : String(error)];
    }
  }
  // Whatever was armed and not used (a repair that came early) must not leak into the next entry.
  const calls = ctx.geminiCalls() - before;
  const wanted: Record<CorpusEntry["repair"], ReplayOutcome> = { good: "repaired", still_bad: "dead_letter", none: "safety_stop" };
  const stopped = outcome === wanted[entry.repair] && calls === EXPECTED_CALLS[entry.repair];
  return { ...base, outcome, calls, detail, reason, stopped };
}
