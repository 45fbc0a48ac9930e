/**
 * Languages as BCP-47 tags, and the Edge TTS voices that speak them. Plain Intl, so the same code
 * runs in Deno, Bun and Node.
 */

/**
 * The canonical form of a BCP-47 language tag (`EN-us` -> `en-US`), or undefined when `tag` is not
 * one: not well-formed for Intl.getCanonicalLocales, carrying extensions or private use (`-u-`,
 * `-x-`: a dimension names a language, not formatting preferences), or `und`.
 */
export function canonicalLanguageTag(tag: string): string | undefined {
  let canonical: string;
  try {
    [canonical] = Intl.getCanonicalLocales(tag.trim());
  } catch {
    return undefined;
  }
  if (!canonical) return undefined;
  const locale = new Intl.Locale(canonical);
  if (locale.baseName !== canonical || locale.language === "und" || !/^[a-z]{2,3}$/.test(locale.language)) return undefined;
  return canonical;
}

/** Edge TTS voice names carry their locale: `en-US-AriaNeural`, `zh-CN-shaanxi-XiaoniNeural`, `sr-Latn-RS-NicholasNeural`. */
const EDGE_VOICE = /^([a-z]{2,3}(?:-[A-Z][a-z]{3})?-[A-Z]{2})-(?:[a-z]+-)?[A-Za-z0-9]+Neural$/;

/** The locale an Edge TTS voice speaks, or undefined when `voice` is not an Edge voice name. */
export function voiceLocale(voice: string): string | undefined {
  const match = EDGE_VOICE.exec(voice);
  return match ? canonicalLanguageTag(match[1]) : undefined;
}

/**
 * Why `voice` cannot speak for a dimension in `language`, or undefined when it can: the languages
 * must be the same, and so must the script and region when the dimension's tag names them
 * (`en` takes any English voice, `en-GB` only a British one).
 */
export function voiceLanguageMismatch(voice: string, language: string): string | undefined {
  const locale = voiceLocale(voice);
  const tag = canonicalLanguageTag(language);
  if (!locale || !tag) return undefined;
  const spoken = new Intl.Locale(locale).maximize();
  const wanted = new Intl.Locale(tag);
  const wantedFull = wanted.maximize();
  if (spoken.language !== wanted.language) return `speaks ${locale}, but the dimension's language is ${tag}`;
  if (wanted.script && spoken.script !== wantedFull.script) return `speaks ${locale}, written in another script than ${tag}`;
  if (wanted.region && spoken.region !== wanted.region) return `speaks ${locale}, but the dimension's language is ${tag}`;
  return undefined;
}

/**
 * The language's name for the model, in English with its own name after it when that differs:
 * `English`, `Russian (Russia) / русский (Россия)`, `Japanese / 日本語`. Falls back to the tag itself.
 */
export function languageDisplayName(tag: string): string {
  const english = displayName(tag, "en");
  const native = displayName(tag, tag);
  if (!english) return tag;
  return native && native.toLowerCase() !== english.toLowerCase() ? `${english} / ${native}` : english;
}

function displayName(tag: string, inLocale: string): string | undefined {
  try {
    const name = new Intl.DisplayNames([inLocale], { type: "language", languageDisplay: "standard", fallback: "none" }).of(tag);
    return name && name !== tag ? name : undefined;
  } catch {
    return undefined;
  }
}
