import { z } from "zod";
import { oneLine } from "./text.ts";

/** One spoken word with its timing in the voice track (from TTS word boundaries). */
export const WordTiming = z.object({
  text: z.string().min(1).max(200),
  offset_ms: z.number().int().nonnegative(),
  duration_ms: z.number().int().nonnegative(),
}).strict();
export type WordTiming = z.infer<typeof WordTiming>;

/** Visual style of a dimension: what the procedural and GPU backends draw with. */
export const VisualStyle = z.object({
  palette: z.array(z.string().regex(/^#[0-9a-fA-F]{6}$/)).min(2).max(6).describe("2 to 6 colours, `#rrggbb`, the backgrounds and captions are drawn with."),
  motion: z.enum(["drift", "pulse", "zoom"]).describe("How the procedural backgrounds move: drift, pulse or zoom."),
  caption_font: oneLine(z.string().min(1).max(100)).default("DejaVu Sans").describe("Font family of the burned-in captions (fontconfig name)."),
}).strict();
export type VisualStyle = z.infer<typeof VisualStyle>;

/** The stored voice track of a work unit. */
export const VoiceTrack = z.object({
  audio_key: z.string().min(1).max(300),
  duration_ms: z.number().int().positive(),
  provider: z.string().min(1).max(100),
  voice: z.string().min(1).max(100),
  words: z.array(WordTiming).min(1).max(5000),
}).strict();
export type VoiceTrack = z.infer<typeof VoiceTrack>;
