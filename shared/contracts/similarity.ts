/**
 * The channel-standing guard's contracts (docs/reference/similarity.md): a dimension's settings,
 * the signature stored for each unit that passed the guard (mdame.content_signatures), and the
 * record of each check kept on the unit (work_units.similarity) for the weekly report.
 */
import { z } from "zod";
import { SceneHash } from "./work-unit.ts";

const num = (min: number, max: number) => z.number({ message: "must be a number" }).min(min, `must be ${min} to ${max}`).max(max, `must be ${min} to ${max}`);
const whole = (min: number, max: number) => num(min, max).int("must be a whole number");

/** The guard's part of a dimension's configuration; the table checks the same bounds (mdame.similarity_is_valid). */
export const SimilaritySettings = z.object({
  /** A combined similarity at or above this to any of the last `compare_last` videos is too similar (0.05-1; 1 lets only exact copies be caught). */
  threshold: num(0.05, 1).default(0.5).describe("Combined similarity (0.05-1) at or above which a new video is too similar to one the dimension published."),
  /** How many of the dimension's latest videos a new one is compared with (1-500). */
  compare_last: whole(1, 500).default(60).describe("How many of the dimension's latest videos a new one is compared with: 1-500."),
  /** Times a too-similar script is written again before the unit is rejected as too_similar (0-3). */
  max_regenerations: whole(0, 3).default(2).describe("Times a too-similar script is written again before the unit is rejected as too_similar: 0-3."),
}).strict();
export type SimilaritySettings = z.infer<typeof SimilaritySettings>;
export const DEFAULT_SIMILARITY: SimilaritySettings = SimilaritySettings.parse({});

/**
 * Values per MinHash signature (shared/similarity/minhash.ts): the estimate's standard error is at
 * most 1/(2·sqrt(128)) ≈ 0.044; changing it makes every stored signature incomparable.
 */
export const MINHASH_SIZE = 128;
/** A MinHash signature: MINHASH_SIZE signed 32-bit integers. */
const Signature = z.array(z.number().int().min(-2147483648).max(2147483647)).length(MINHASH_SIZE);

/** What is stored of a unit that passed the guard: enough to compare with it without its texts. */
export const ContentSignature = z.object({
  title: Signature,
  hook: Signature,
  script: Signature,
  scene_hashes: z.array(SceneHash).max(20),
}).strict();
export type ContentSignature = z.infer<typeof ContentSignature>;

const share = z.number().min(0).max(1);

/** One comparison's figures: each part's estimated Jaccard index and the combined score. */
export const SimilarityFigures = z.object({ title: share, hook: share, script: share, scenes: share, combined: share }).strict();
export type SimilarityFigures = z.infer<typeof SimilarityFigures>;

/** A stored signature as get_content_signatures returns it: the unit it belongs to, its title, its signature. */
export const StoredSignature = z.object({
  unit_id: z.string().uuid(),
  title: z.string(),
  signature: ContentSignature,
}).strict();
export type StoredSignature = z.infer<typeof StoredSignature>;

/**
 * One check as the plan stage sends it: how many videos it compared with, the closest (its unit,
 * title and figures) and the verdict at the threshold in force. `too_similar` becomes `regenerated`
 * or `rejected` in SQL (mdame.record_too_similar), which counts the regenerations.
 */
export const SimilarityCheck = z.object({
  compared: z.number().int().nonnegative(),
  threshold: share,
  closest: z.object({ unit_id: z.string().uuid(), title: z.string(), figures: SimilarityFigures }).strict().nullable(),
  verdict: z.enum(["passed", "too_similar"]),
}).strict();
export type SimilarityCheck = z.infer<typeof SimilarityCheck>;

/** A check as recorded on the unit: with the action taken. */
export const RecordedSimilarityCheck = SimilarityCheck.extend({
  action: z.enum(["passed", "regenerated", "rejected"]),
  checked_at: z.string(),
}).strict();

/** work_units.similarity: every check of the unit, in order. */
export const UnitSimilarity = z.object({ checks: z.array(RecordedSimilarityCheck) }).strict();
export type UnitSimilarity = z.infer<typeof UnitSimilarity>;

/** What record_scene_plan keeps of a unit that passed the guard: the check and the signature to store. */
export const SimilarityPass = z.object({ check: SimilarityCheck, signature: ContentSignature }).strict();
export type SimilarityPass = z.infer<typeof SimilarityPass>;
