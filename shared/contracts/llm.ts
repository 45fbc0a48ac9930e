import { z } from "zod";

/**
 * What the LLM must return. Its output is data: it is parsed with these strict schemas and
 * never routes anything. Prompts start with `TASK: <name>` and carry `KEY: value` header lines,
 * then free instructions (see functions/pipeline/stages/prompts.ts).
 */
export const ScriptDraft = z.object({
  title: z.string().min(8).max(90),
  hook: z.string().min(8).max(200),
  /** The full voice-over, hook first; 20-75 s of speech. */
  narration: z.string().min(200).max(1400),
  description: z.string().min(1).max(4000),
  hashtags: z.array(z.string().max(100).regex(/^#[\p{L}\p{N}_]+$/u)).min(1).max(5),
}).strict();
export type ScriptDraft = z.infer<typeof ScriptDraft>;

/** Scene plan: the narration split in order into 5-10 scenes, each with a visual prompt. */
export const ScenePlan = z.object({
  scenes: z.array(
    z.object({
      prompt: z.string().min(8).max(400),
      narration: z.string().min(1).max(1400),
      /** Words a stock-video search can use; optional so plans cached before keywords still parse. */
      keywords: z.array(z.string().trim().min(1).max(60)).max(8).optional(),
    }).strict(),
  ).min(5).max(10),
}).strict();
export type ScenePlan = z.infer<typeof ScenePlan>;

/** The language a dimension speaks: any BCP-47 tag (shared/contracts/language.ts). */
export { LanguageTag as Language } from "./language.ts";

/** Adversarial hook audit: how likely the first seconds stop a scroll, with the reasons. */
export const HookAudit = z.object({
  score: z.number().min(0).max(1),
  reasons: z.array(z.string().max(500)).max(20),
}).strict();
export type HookAudit = z.infer<typeof HookAudit>;

/**
 * The jobs a dimension gives to an LLM: the script writer, the hook critic, the safety
 * classifier and the scene planner. Each may run on its own provider and model.
 */
export const LlmTask = z.enum(["script", "critic", "safety", "plan"]);
export type LlmTask = z.infer<typeof LlmTask>;

/** Providers the engine can call: Gemini, and any OpenAI-compatible Chat Completions endpoint. */
export const LlmProviderName = z.enum(["gemini", "openai-compat"]);
export type LlmProviderName = z.infer<typeof LlmProviderName>;

/** One provider and model; without a model, the provider's configured default (GEMINI_MODEL, OPENAI_COMPAT_MODEL). */
export const LlmRoute = z.object({
  provider: LlmProviderName.describe("`gemini`, or `openai-compat`: any OpenAI-compatible Chat Completions endpoint (OPENAI_COMPAT_BASE_URL)."),
  model: z.string().trim().min(1, "must not be empty").max(120, "must be at most 120 characters")
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, "must be a model id like gemini-2.5-flash or llama3.1:8b").optional()
    .describe("The model; left out: the provider's configured default (GEMINI_MODEL, OPENAI_COMPAT_MODEL)."),
}).strict();
export type LlmRoute = z.infer<typeof LlmRoute>;

const routeList = z.array(LlmRoute).min(1, "must name at least one provider").max(4, "must name at most 4 providers");

/**
 * Per task, providers in order of preference: the next is tried only when one is unavailable
 * (unreachable, overloaded, refusing the key). A task left out runs on Gemini's default model.
 */
export const LlmRouting = z.object({
  script: routeList.optional().describe("Providers of the script writer, in order of preference."),
  critic: routeList.optional().describe("Providers of the hook critic, in order of preference."),
  safety: routeList.optional().describe("Providers of the safety classifier, in order of preference."),
  plan: routeList.optional().describe("Providers of the scene planner, in order of preference."),
}).strict();
export type LlmRouting = z.infer<typeof LlmRouting>;

/** What a task runs on when the dimension names nothing. */
export const DEFAULT_LLM_ROUTE: LlmRoute = { provider: "gemini" };
