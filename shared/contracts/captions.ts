import { z } from "zod";

/**
 * Which platform's UI overlay the burned-in captions keep clear of. `intersection` keeps clear of
 * all three at once, so one render can go anywhere. The margins are in render-runner/safe-zones.ts.
 */
export const CaptionProfile = z.enum(["intersection", "youtube_shorts", "tiktok", "reels"], {
  message: "must be one of intersection, youtube_shorts, tiktok, reels",
});
export type CaptionProfile = z.infer<typeof CaptionProfile>;

/**
 * A dimension's caption setting: a profile, or `platforms` (the default), which the render job
 * resolves from the dimension's active accounts: all on YouTube -> youtube_shorts, all on TikTok
 * -> tiktok, on several platforms or none -> intersection (mdame.render_job).
 */
const DimensionCaptionProfile = z.enum(["platforms", "intersection", "youtube_shorts", "tiktok", "reels"], {
  message: "must be one of platforms, intersection, youtube_shorts, tiktok, reels",
});
type DimensionCaptionProfile = z.infer<typeof DimensionCaptionProfile>;

/** A dimension's caption settings (`captions` in its configuration). */
export const DimensionCaptions = z.object({
  profile: DimensionCaptionProfile.default("platforms")
    .describe(
      "Whose UI the captions keep clear of: `platforms` (the platform of the dimension's accounts, all of them when several), or one of intersection, youtube_shorts, tiktok, reels.",
    ),
}).strict();
export type DimensionCaptions = z.infer<typeof DimensionCaptions>;

/** One caption cue's box on the 1080x1920 frame, in pixels, outline included. */
export const CaptionBox = z.object({
  /** Index of the cue in play order, and its text (lines joined by " / "), to name it in a failure. */
  cue: z.number().int().nonnegative(),
  text: z.string().max(500),
  start_ms: z.number().int().nonnegative(),
  left: z.number(),
  top: z.number(),
  right: z.number(),
  bottom: z.number(),
}).strict();
export type CaptionBox = z.infer<typeof CaptionBox>;
