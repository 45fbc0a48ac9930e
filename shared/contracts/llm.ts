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
  scenes: z.array(z.object({
    prompt: z.string().min(8).max(400),
    narration: z.string().min(1).max(1400),
    /** Words a stock-video search can use; optional so plans cached before keywords still parse. */
    keywords: z.array(z.string().trim().min(1).max(60)).max(8).optional(),
  }).strict()).min(5).max(10),
}).strict();
export type ScenePlan = z.infer<typeof ScenePlan>;

/** Languages the engine speaks; a dimension picks one. */
export const Language = z.enum(["en", "id"]);
export type Language = z.infer<typeof Language>;

/** Adversarial hook audit: how likely the first seconds stop a scroll, with the reasons. */
export const HookAudit = z.object({
  score: z.number().min(0).max(1),
  reasons: z.array(z.string().max(500)).max(20),
}).strict();
export type HookAudit = z.infer<typeof HookAudit>;
