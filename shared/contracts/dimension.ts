import { z } from "zod";
import { timestamp } from "./columns.ts";
import { LlmRouting } from "./llm.ts";
import { voiceLanguageMismatch } from "../text/language.ts";
import { EdgeVoiceName, LanguageTag } from "./language.ts";
import { DimensionCaptions } from "./captions.ts";
import { oneLine } from "./text.ts";
import { VisualStyle } from "./media.ts";
import { DEFAULT_PUBLISHING, DimensionPublishing, PublishingPatch } from "./publishing.ts";
import { DimensionAlerts } from "./alerts.ts";
import { DEFAULT_SAFETY_PROFILE, SafetyProfile } from "./safety.ts";
import { DEFAULT_SOURCES, MinScore, Sources, Subject } from "./sources.ts";
import { GEMINI_TTS_VOICES } from "./gemini-voices.ts";
import { adaptRules, AdaptSettings, DEFAULT_ADAPT } from "./adapt.ts";
import { DEFAULT_VISUALS, VisualsConfig } from "./visuals.ts";
import { DimensionId } from "./dimension-id.ts";
import { DEFAULT_SIMILARITY, SimilaritySettings } from "./similarity.ts";
import { DimensionBudget } from "./spend.ts";
import { ReviewSettings } from "./review.ts";

/**
 * A dimension's configuration: the one definition of what `mdame dimension add|set` reads from a
 * file, what the operator API accepts and returns, and what `mdame.dimensions` stores (its columns
 * carry the same names). Every bound here matches a check constraint of the table, so a config
 * this schema accepts is one the database stores.
 */

/** Narration length bounds (words) a vertical short can hold; the table checks the same. */
const NARRATION_WORDS = { min: 60, max: 180, minSpread: 10 } as const;

export { DimensionId };

const wholeNumber = (min: number, max: number, range: string) =>
  z.number({ message: "must be a whole number" }).int("must be a whole number").min(min, range).max(max, range);
const narrationWords = wholeNumber(NARRATION_WORDS.min, NARRATION_WORDS.max, `must be ${NARRATION_WORDS.min} to ${NARRATION_WORDS.max}`);

/**
 * An optional music bed under the voice. `library` is a storage prefix (`music/calm`) holding the
 * tracks, each with a licence sidecar `<track name>.license.json`; the render picks one track per
 * video (deterministically, by the unit), loops or trims it to the video, fades it in and out and
 * ducks it under the voice. The table checks the same bounds (mdame.music_bed_is_valid).
 */
export const MusicBed = z.object({
  library: z.string().max(200, "must be at most 200 characters").regex(
    /^[a-z0-9_-]+(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/,
    "must be a storage prefix like music/calm: lower-case first folder, then folders of letters, digits, '.', '-' or '_'",
  ).describe("Storage prefix holding the tracks (music/calm), each with a licence sidecar <track name>.license.json."),
  /** Loudness of the bed where nobody speaks, relative to the voice, in LU (dB). */
  gain_db: z.number({ message: "must be a number" }).min(-40, "must be -40 to 0").max(0, "must be -40 to 0").default(-10)
    .describe("Loudness of the bed where nobody speaks, relative to the voice, in LU (dB): -40 to 0."),
  /** How far the bed dips while the voice speaks, in dB. */
  duck_db: z.number({ message: "must be a number" }).min(0, "must be 0 to 30").max(30, "must be 0 to 30").default(10)
    .describe("How far the bed dips while the voice speaks, in dB: 0 to 30."),
  /** Fade-in at the start and fade-out at the end, in seconds. */
  fade_s: z.number({ message: "must be a number" }).min(0, "must be 0 to 5").max(5, "must be 0 to 5").default(1.5)
    .describe("Fade-in at the start and fade-out at the end, in seconds: 0 to 5."),
}).strict();
export type MusicBed = z.infer<typeof MusicBed>;

/** Each field once, without defaults: a whole config adds them, a patch leaves them out. */
export const DimensionFields = {
  id: DimensionId.describe("The dimension's id: 2-41 characters, lower-case letters, digits, '-' or '_', starting with a letter or digit; it cannot change."),
  display_name: oneLine(z.string().trim().min(1, "must not be empty").max(80, "must be at most 80 characters")).describe(
    "The name people see: one line, 1-80 characters.",
  ),
  /** Any BCP-47 language tag (`en`, `ru-RU`, `ja-JP`), stored in canonical form. */
  language: LanguageTag.describe("Any BCP-47 language tag (en, id, ru-RU, ja-JP), stored in canonical form (docs/reference/languages.md)."),
  /** The TTS voice, e.g. `en-US-AriaNeural`; it must speak the dimension's language (and region, when the language names one). */
  tts_voice: EdgeVoiceName.describe(
    "The Edge TTS neural voice, e.g. en-US-AriaNeural; it must speak the dimension's language (and region, when the language names one).",
  ),
  /**
   * The Gemini TTS voice spoken when Edge TTS is unavailable (`Kore`, `Puck`, ...); null: the
   * default for the dimension's language (docs/reference/voice.md).
   */
  tts_fallback_voice: z.enum(GEMINI_TTS_VOICES, { message: `must be a Gemini TTS voice: ${GEMINI_TTS_VOICES.join(", ")}` }).nullable().describe(
    "The Gemini TTS voice spoken when Edge TTS is unavailable (Kore, Puck, ...); null: the default for the dimension's language (docs/reference/voice.md).",
  ),
  /** Speaking rate relative to the voice's normal pace, `+0%`, `-10%`, `+15%`. */
  tts_rate: z.string().regex(/^[+-][0-9]{1,2}%$/, "must be a signed percentage like +0% or -10%").describe(
    "Speaking rate relative to the voice's normal pace: a signed percentage, +0%, -10%, +15%.",
  ),
  /** Google Trends region of the trend feed: an ISO 3166-1 alpha-2 code. */
  trend_geo: z.string().regex(/^[A-Z]{2}$/, "must be a two-letter upper-case country code like US").describe(
    "Google Trends region of the trend feed: an ISO 3166-1 alpha-2 code in upper case, e.g. US.",
  ),
  style: VisualStyle.describe("Visual style the procedural and GPU backends draw with: palette, motion, caption font."),
  /** Visual backends in order of preference, ending with `procedural`, and the Pexels blocklist. */
  visuals: VisualsConfig.describe("Visual backends in order of preference, ending with procedural, and the Pexels blocklist."),
  /** Blocked terms and categories, and how strict the classifier is (shared/contracts/safety.ts). */
  safety_profile: SafetyProfile.describe("Blocked terms and categories, and how strict the safety classifier is (docs/reference/safety.md)."),
  /** At most this many new videos per day (0 keeps the dimension idle without pausing it). */
  daily_limit: wholeNumber(0, 50, "must be 0 to 50").describe("At most this many new videos per day, 0-50 (0 keeps the dimension idle without pausing it)."),
  narration_min_words: narrationWords.describe("Fewest words of a narration, 60-180; at least 10 fewer than narration_max_words."),
  narration_max_words: narrationWords.describe("Most words of a narration, 60-180; at least 10 more than narration_min_words."),
  /** What the dimension is about: keywords, categories, excluded terms (shared/contracts/sources.ts). */
  subject: Subject.describe("What the dimension is about: keywords, categories and excluded terms (docs/reference/sources.md)."),
  /** Where its topics come from, each with a weight. */
  sources: Sources.describe("Where its topics come from: 1-10 sources, each with a kind and a weight (docs/reference/sources.md)."),
  /** Topics scoring under this (0-1) are dropped, with their score recorded. */
  min_score: MinScore.describe("Topics scoring under this (0-1) are dropped, with their score recorded."),
  /**
   * Which LLM answers each task (script, critic, safety, plan): providers in order of preference,
   * e.g. `{"critic": [{"provider": "openai-compat", "model": "llama3.1:8b"}, {"provider": "gemini"}]}`.
   * A task left out runs on Gemini's default model; a `set` replaces the whole routing.
   */
  llm: LlmRouting.describe(
    "Which LLM answers each task (script, critic, safety, plan): providers in order of preference; a task left out runs on Gemini's default model; a set replaces the whole routing.",
  ),
  /** Burned-in captions: which platform's UI they keep clear of (`platforms`: the one its accounts are on, `intersection`: all of them). */
  captions: DimensionCaptions.describe("Burned-in captions: which platform's UI they keep clear of."),
  /** The music bed, or null for voice only. */
  music: MusicBed.nullable().describe("The music bed under the voice, or null for voice only (docs/reference/audio.md)."),
  /**
   * What its uploads tell YouTube (category, privacy, made for kids, synthetic media, audio
   * language) and when they go public and its production starts (shared/contracts/publishing.ts).
   */
  publishing: DimensionPublishing.describe(
    "What its uploads tell YouTube (category, privacy, made for kids, synthetic media, audio language), when they go public and when its production starts (docs/reference/distribution.md); a set changes only the fields it names.",
  ),
  /** Where its alerts go (docs/reference/alerts.md); null: the environment's chat. */
  alerts: DimensionAlerts.nullable().describe("Where its alerts go (docs/reference/alerts.md); null: the environment's chat."),
  /** Whether its rendered videos wait for the operator before publishing (shared/contracts/review.ts); null: they publish at once. */
  review: ReviewSettings.nullable().describe(
    "Review before publish (docs/guides/review.md): each rendered video waits for mdame review approve or reject, up to expires_after, then on_expiry decides; null: videos publish at once.",
  ),
  /**
   * What the weekly adaptive engine may move, within which bounds and by which step, and what is
   * pinned (shared/contracts/adapt.ts, docs/reference/adaptive.md).
   */
  adapt: AdaptSettings.describe(
    "What the weekly adaptive engine may move, within which bounds and by which step, and what is pinned (docs/reference/adaptive.md); a set replaces the whole section.",
  ),
  /** The channel-standing guard: how alike a new video may be to the dimension's latest ones (shared/contracts/similarity.ts). */
  similarity: SimilaritySettings.describe(
    "The channel-standing guard: the combined similarity threshold, how many latest videos to compare with, and how often a too-similar script is rewritten (docs/reference/similarity.md); a set replaces the whole section.",
  ),
  /** Spend caps in USD a day and a month (docs/reference/spend.md); null: no cap. */
  budget: DimensionBudget.nullable().describe(
    "Spend caps in USD, {daily_usd, monthly_usd}, each optional (docs/reference/spend.md); a unit whose next paid call would pass one waits; null: no cap.",
  ),
};

type ConfigShape = {
  language?: string;
  tts_voice?: string;
  narration_min_words?: number;
  narration_max_words?: number;
};

/** Rules that tie two fields together; reported on the field to change. */
function crossFieldRules(value: ConfigShape, ctx: z.RefinementCtx): void {
  const mismatch = value.tts_voice && value.language ? voiceLanguageMismatch(value.tts_voice, value.language) : undefined;
  if (mismatch) ctx.addIssue({ code: "custom", path: ["tts_voice"], message: mismatch });
  const { narration_min_words: min, narration_max_words: max } = value;
  if (min !== undefined && max !== undefined && max - min < NARRATION_WORDS.minSpread) {
    ctx.addIssue({
      code: "custom",
      path: ["narration_max_words"],
      message: `must be at least ${NARRATION_WORDS.minSpread} more than narration_min_words (${min})`,
    });
  }
}

/** A whole dimension configuration (a file given to `mdame dimension add`, or the merged result of a `set`). */
export const DimensionConfig = z.object({
  ...DimensionFields,
  tts_rate: DimensionFields.tts_rate.default("+0%"),
  tts_fallback_voice: DimensionFields.tts_fallback_voice.default(null),
  safety_profile: DimensionFields.safety_profile.default(DEFAULT_SAFETY_PROFILE),
  visuals: DimensionFields.visuals.default(DEFAULT_VISUALS),
  daily_limit: DimensionFields.daily_limit.default(1),
  narration_min_words: DimensionFields.narration_min_words.default(95),
  narration_max_words: DimensionFields.narration_max_words.default(150),
  subject: DimensionFields.subject.default({ keywords: [], categories: [], excluded_terms: [] }),
  sources: DimensionFields.sources.default(DEFAULT_SOURCES),
  min_score: DimensionFields.min_score.default(0),
  llm: DimensionFields.llm.default({}),
  captions: DimensionFields.captions.default({ profile: "platforms" }),
  music: DimensionFields.music.default(null),
  publishing: DimensionFields.publishing.default(DEFAULT_PUBLISHING),
  alerts: DimensionFields.alerts.default(null),
  review: DimensionFields.review.default(null),
  adapt: DimensionFields.adapt.default(DEFAULT_ADAPT),
  similarity: DimensionFields.similarity.default(DEFAULT_SIMILARITY),
  budget: DimensionFields.budget.default(null),
}).strict().superRefine(crossFieldRules).superRefine(adaptRules);
export type DimensionConfig = z.infer<typeof DimensionConfig>;
export type DimensionConfigInput = z.input<typeof DimensionConfig>;

/** The names of a dimension's configuration settings: its table's configuration columns. */
export const DIMENSION_SETTINGS = Object.keys(DimensionFields) as (keyof typeof DimensionFields)[];

/**
 * What `mdame dimension set` sends: any fields but the id; checked again once merged with the stored
 * config. `publishing` names only the fields it changes: the others keep their stored value.
 */
export const DimensionPatch = z.object({ ...DimensionFields, publishing: PublishingPatch }).omit({ id: true }).partial().strict()
  .refine((patch) => Object.keys(patch).length > 0, { message: "names no field to change" });
export type DimensionPatch = z.infer<typeof DimensionPatch>;

/** A row of `mdame.dimensions` as `mdame.get_dimensions` returns it (timestamps as postgres.js gives them). */
export const StoredDimension = z.object({
  ...DimensionFields,
  safety_profile: SafetyProfile,
  /** False once paused: new runs leave it out. */
  active: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
}).strict();
export type StoredDimension = z.infer<typeof StoredDimension>;

/** A stored dimension as the API shows it: its configuration, whether runs pick it, its timestamps as JSON text, and its accounts at a glance. */
export const Dimension = StoredDimension.extend({
  created_at: timestamp,
  updated_at: timestamp,
  /** Connected accounts, and how many of them are active. */
  accounts: z.number().int().nonnegative(),
  active_accounts: z.number().int().nonnegative(),
}).strict();
export type Dimension = z.infer<typeof Dimension>;

/** GET /pipeline/dimensions. */
export const DimensionList = z.object({ dimensions: z.array(Dimension) }).strict();
export type DimensionList = z.infer<typeof DimensionList>;

/** One line per problem, `field: message`, unknown fields one by one; for people reading a config's errors. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) lines.push(`${at ? `${at}.` : ""}${key}: unknown field`);
    } else if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
      lines.push(`${at || "(config)"}: is required`);
    } else {
      lines.push(`${at || "(config)"}: ${issue.message}`);
    }
  }
  return lines;
}
