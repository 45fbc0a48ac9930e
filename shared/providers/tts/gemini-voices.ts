/** Gemini TTS's prebuilt voices (speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName). */
export const GEMINI_TTS_VOICES = [
  "Achernar", "Achird", "Algenib", "Algieba", "Alnilam", "Aoede", "Autonoe", "Callirrhoe", "Charon", "Despina",
  "Enceladus", "Erinome", "Fenrir", "Gacrux", "Iapetus", "Kore", "Laomedeia", "Leda", "Orus", "Puck",
  "Pulcherrima", "Rasalgethi", "Sadachbia", "Sadaltager", "Schedar", "Sulafat", "Umbriel", "Vindemiatrix", "Zephyr",
  "Zubenelgenubi",
] as const;
export type GeminiTtsVoice = (typeof GEMINI_TTS_VOICES)[number];

/**
 * The fallback voice of a dimension that names none. Gemini's voices speak every language it
 * supports; these were picked for a clear, even narration in each of the engine's languages.
 */
export const DEFAULT_GEMINI_VOICE: Record<"en" | "id", GeminiTtsVoice> = { en: "Kore", id: "Aoede" };

/** BCP-47 code sent with the request, so the model does not have to guess the language. */
export const GEMINI_LANGUAGE_CODE: Record<"en" | "id", string> = { en: "en-US", id: "id-ID" };
