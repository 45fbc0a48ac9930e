import { z } from "zod";
import { oneLine } from "./text.ts";

/**
 * Content safety: the categories the classifier names, a dimension's safety profile, and the
 * verdict the classifier model must return (strict JSON, validated like any LLM output).
 */

/** Categories no dimension may publish, whatever its profile says. */
export const ENGINE_BLOCKED_CATEGORIES = [
  "violence",
  "weapons",
  "self-harm",
  "sexual",
  "hate",
  "harassment",
  "extremism",
  "illegal-drugs",
  "dangerous-acts",
  "gambling",
  "medical-claims",
  "personal-data",
] as const;

/** Categories a dimension chooses to block (a news dimension may allow politics, a children's dimension blocks all). */
const OPTIONAL_CATEGORIES = ["politics", "religion", "alcohol-tobacco", "financial-advice", "tragedy"] as const;

/** Every category the classifier may answer; `none` when nothing sensitive is there, `other` for a refusal without one. */
export const SafetyCategory = z.enum(["none", "other", ...ENGINE_BLOCKED_CATEGORIES, ...OPTIONAL_CATEGORIES]);
export type SafetyCategory = z.infer<typeof SafetyCategory>;

/**
 * How sure the classifier must be that a text is safe: `lenient` accepts an "allowed" answer at
 * confidence 0.3, `standard` at 0.5, `strict` at 0.7; `strict` also refuses a text the model
 * allowed while naming a blocked category.
 */
const Strictness = z.enum(["lenient", "standard", "strict"]);
type Strictness = z.infer<typeof Strictness>;
export const ALLOWED_CONFIDENCE: Record<Strictness, number> = { lenient: 0.3, standard: 0.5, strict: 0.7 };

const DEFAULT_BLOCKED_CATEGORIES: readonly (typeof OPTIONAL_CATEGORIES)[number][] = ["financial-advice"];

const profileFields = {
  /** Words or phrases this dimension never publishes (matched as whole words by the rules pre-filter). */
  blocked_terms: z.array(oneLine(z.string().trim().min(1, "must not be empty").max(60, "must be at most 60 characters")))
    .max(200, "must list at most 200 terms")
    .describe("Words or phrases this dimension never publishes (matched as whole words)."),
  /** Optional categories this dimension also blocks, on top of the engine's. */
  blocked_categories: z.array(z.enum(OPTIONAL_CATEGORIES, { message: `must be one of ${OPTIONAL_CATEGORIES.join(", ")}` }))
    .max(OPTIONAL_CATEGORIES.length)
    .describe(`Optional categories this dimension also blocks, on top of the engine's: ${OPTIONAL_CATEGORIES.join(", ")}.`),
  strictness: z.enum(Strictness.options, { message: `must be one of ${Strictness.options.join(", ")}` })
    .describe(
      "How sure the classifier must be that a text is safe: lenient (0.3), standard (0.5) or strict (0.7, also refusing a text allowed while naming a blocked category).",
    ),
};

/** A dimension's safety profile; every field has a default, so `{}` (or a profile stored before a field existed) is valid. */
export const SafetyProfile = z.object({
  blocked_terms: profileFields.blocked_terms.default([]),
  blocked_categories: profileFields.blocked_categories.default([...DEFAULT_BLOCKED_CATEGORIES]),
  strictness: profileFields.strictness.default("standard"),
}).strict();
export type SafetyProfile = z.infer<typeof SafetyProfile>;
export const DEFAULT_SAFETY_PROFILE: SafetyProfile = SafetyProfile.parse({});

/** What the classifier model answers. */
export const ModelSafetyVerdict = z.object({
  allowed: z.boolean(),
  category: SafetyCategory,
  reason: z.string().min(1).max(500),
  confidence: z.number().min(0).max(1),
}).strict();
export type ModelSafetyVerdict = z.infer<typeof ModelSafetyVerdict>;

/** A verdict as the engine records it in mdame.safety_audit_logs. */
export const SafetyVerdict = z.object({
  allowed: z.boolean(),
  category: SafetyCategory,
  reasons: z.array(z.string().max(500)).max(20),
  /** Classifier id and version: `rules/1`, `prompt-firewall/2`, `gemini-safety/2`, `output-check/1`. */
  classifier: z.string(),
  /** The model that answered, when one did. */
  model: z.string().nullable(),
  confidence: z.number().min(0).max(1).nullable(),
}).strict();
export type SafetyVerdict = z.infer<typeof SafetyVerdict>;
