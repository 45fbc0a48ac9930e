/** Gemini TTS's prebuilt voices (speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName). */
export const GEMINI_TTS_VOICES = [
  "Achernar",
  "Achird",
  "Algenib",
  "Algieba",
  "Alnilam",
  "Aoede",
  "Autonoe",
  "Callirrhoe",
  "Charon",
  "Despina",
  "Enceladus",
  "Erinome",
  "Fenrir",
  "Gacrux",
  "Iapetus",
  "Kore",
  "Laomedeia",
  "Leda",
  "Orus",
  "Puck",
  "Pulcherrima",
  "Rasalgethi",
  "Sadachbia",
  "Sadaltager",
  "Schedar",
  "Sulafat",
  "Umbriel",
  "Vindemiatrix",
  "Zephyr",
  "Zubenelgenubi",
] as const;
type GeminiTtsVoice = (typeof GEMINI_TTS_VOICES)[number];

/**
 * The fallback voice of a dimension that names none. Gemini's voices speak every language it
 * supports; these were picked for a clear, even narration (Aoede for Indonesian, Kore elsewhere).
 */
const DEFAULT_VOICE_BY_LANGUAGE: Record<string, GeminiTtsVoice> = { id: "Aoede" };

export function defaultGeminiVoice(language: string): GeminiTtsVoice {
  return DEFAULT_VOICE_BY_LANGUAGE[new Intl.Locale(language).language] ?? "Kore";
}

/**
 * The language code sent with the request, so the model does not have to guess the language:
 * language-REGION, the region the tag names or the language's likeliest one (`en` -> en-US,
 * `ru` -> ru-RU).
 */
export function geminiLanguageCode(language: string): string {
  const locale = new Intl.Locale(language).maximize();
  return locale.region ? `${locale.language}-${locale.region}` : locale.language;
}
