import { z } from "zod";
import { canonicalLanguageTag, voiceLocale } from "../text/language.ts";

/**
 * A language as a BCP-47 tag (`en`, `id`, `ru-RU`, `ja-JP`, `zh-Hant-TW`), checked by
 * Intl.getCanonicalLocales and stored in its canonical form (`EN-us` becomes `en-US`). Extensions
 * and private-use subtags are refused: a dimension names a language and region, not preferences.
 */
export const LanguageTag = z.string().max(35, "must be at most 35 characters").transform((tag, ctx) => {
  const canonical = canonicalLanguageTag(tag);
  if (!canonical) {
    ctx.addIssue({ code: "custom", message: "must be a BCP-47 language tag like en, ru-RU or ja-JP" });
    return z.NEVER;
  }
  return canonical;
});
export type LanguageTag = z.infer<typeof LanguageTag>;

/** An Edge TTS (Azure) neural voice name, which starts with the locale it speaks: `ru-RU-SvetlanaNeural`. */
export const EdgeVoiceName = z.string().max(100, "must be at most 100 characters").refine(
  (voice) => voiceLocale(voice) !== undefined,
  "must be a neural voice name like en-US-AriaNeural (its locale first)",
);
