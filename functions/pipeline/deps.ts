import { loadEnv, META_ENV_KEYS, STORAGE_ENV_KEYS, TELEGRAM_ENV_KEYS, TREND_SOURCE_ENV_KEYS } from "../../shared/config/env.ts";
import { type CredentialKeyRing, credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger, type Logger } from "../../shared/logging/logger.ts";
import { createGeminiJsonModel } from "../../shared/providers/llm/gemini.ts";
import { createOpenAiCompatibleModel } from "../../shared/providers/llm/openai-compatible.ts";
import { createSourceClients, type SourceClients } from "../../shared/providers/sources/index.ts";
import { speakWithEdgeTts } from "../../shared/providers/tts/edge-tts.ts";
import { synthesizeWithGeminiTts } from "../../shared/providers/tts/gemini-tts.ts";
import { defaultGeminiVoice, geminiLanguageCode } from "../../shared/contracts/gemini-voices.ts";
import type { SynthesizedSpeech } from "../../shared/providers/tts/speech.ts";
import type { Language } from "../../shared/contracts/llm.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import type { AssetStore } from "../../shared/storage/asset-store.ts";
import { createAssetStore } from "../../shared/storage/create-asset-store.ts";
import { paidCall } from "../../shared/spend/metered.ts";
import { createLlmRouter, type LlmProviders, type LlmRouter, memoizedProvider } from "./llm-router.ts";
import { youtubeClientFor } from "../../shared/providers/youtube/account-client.ts";
import type { Defences } from "./safety/defences.ts";

const PIPELINE_ENV_KEYS = [
  "ENV",
  "DB_URL",
  "FUNCTIONS_URL",
  "SERVICE_ROLE_KEY",
  "CREDENTIALS_KEY",
  "CREDENTIALS_KEYS_PREVIOUS",
  ...STORAGE_ENV_KEYS,
  "GEMINI_API_KEY",
  "GEMINI_BASE_URL",
  "GEMINI_MODEL",
  "GEMINI_TTS_MODEL",
  "OPENAI_COMPAT_BASE_URL",
  "OPENAI_COMPAT_API_KEY",
  "OPENAI_COMPAT_MODEL",
  "OPENAI_COMPAT_RESPONSE_FORMAT",
  "EDGE_TTS_WSS_URL",
  "YOUTUBE_UPLOAD_BASE_URL",
  "YOUTUBE_API_BASE_URL",
  "YOUTUBE_ANALYTICS_BASE_URL",
  "GOOGLE_OAUTH_TOKEN_URL",
  "GOOGLE_OAUTH_CLIENT_ID",
  "GOOGLE_OAUTH_CLIENT_SECRET",
  "TIKTOK_CLIENT_KEY",
  "TIKTOK_CLIENT_SECRET",
  "TIKTOK_API_BASE_URL",
  ...META_ENV_KEYS,
  ...TREND_SOURCE_ENV_KEYS,
  ...TELEGRAM_ENV_KEYS,
  "EDGE_CPU_LIMIT_MS",
  "EDGE_MEMORY_LIMIT_MB",
  "EDGE_WALL_LIMIT_S",
  "STAGE_CONCURRENCY",
  "LEASE_S",
  "TICK_CPU_SHARE",
] as const;

type PipelineEnv = ReturnType<typeof loadEnv<(typeof PIPELINE_ENV_KEYS)[number]>>;

type SynthesizeSpeech = (request: { text: string; voice: string; rate: string; language: Language }) => Promise<SynthesizedSpeech>;

/** What a voice provider needs to know of a dimension to pick its voice. */
export interface DimensionVoices {
  language: Language;
  tts_voice: string;
  tts_fallback_voice: string | null;
}

/** One voice of the chain: its name (part of the voice cache key), its voice for a dimension, its call. */
export interface VoiceProvider {
  provider: string;
  /** Extension of the tracks it makes, for finding a stored one before any call. */
  extension: SynthesizedSpeech["extension"];
  voiceFor: (dimension: DimensionVoices) => string;
  synthesize: SynthesizeSpeech;
}

/** Everything the pipeline's stages reach outside their own code. */
export interface PipelineDeps {
  env: PipelineEnv;
  sql: Sql;
  store: AssetStore;
  logger: Logger;
  /** The keys that seal account credentials: the current one seals, each opens what it sealed (docs/guides/rotation.md). */
  credentialKeys: CredentialKeyRing;
  /** The LLM per task and dimension: stages ask it for `script`, `critic`, `safety` or `plan`. */
  llm: LlmRouter;
  /** Voice providers in order of preference; the first that succeeds wins, none -> HALT. */
  voices: VoiceProvider[];
  /** The trend source clients (shared/providers/sources), one per kind. */
  sources: SourceClients;
  /**
   * A fresh access token for a YouTube account's refresh token, refreshed with the OAuth client of
   * the account's Google project (shared/providers/youtube/account-client.ts): the one that granted it.
   */
  youtubeAccessToken: (input: { accountId: string; refreshToken: string }) => Promise<string>;
  /** Prompt-injection layers switched off (only the injection eval does); all are on when absent. */
  defences?: Partial<Defences>;
}

/** The LLM providers the environment configures: Gemini always, an OpenAI-compatible API when its base URL is set. */
function llmProvidersFromEnv(env: PipelineEnv): LlmProviders {
  const providers: LlmProviders = {
    gemini: memoizedProvider(env.GEMINI_MODEL, (model) => createGeminiJsonModel({ apiKey: env.GEMINI_API_KEY, baseUrl: env.GEMINI_BASE_URL, model })),
  };
  if (env.OPENAI_COMPAT_BASE_URL) {
    const baseUrl = env.OPENAI_COMPAT_BASE_URL;
    providers["openai-compat"] = memoizedProvider(
      env.OPENAI_COMPAT_MODEL,
      (model) => createOpenAiCompatibleModel({ baseUrl, apiKey: env.OPENAI_COMPAT_API_KEY, model, responseFormat: env.OPENAI_COMPAT_RESPONSE_FORMAT }),
    );
  }
  return providers;
}

/** Builds the real dependencies from the environment; throws ConfigError naming what is wrong. */
export function createPipelineDeps(source?: Record<string, string | undefined>): PipelineDeps {
  const env = loadEnv(PIPELINE_ENV_KEYS, source);
  const logger = createLogger("pipeline", undefined, source?.LOG_LEVEL);
  const sql = createSql(env.DB_URL, { max: 4, application: "mdame-pipeline" });
  const credentialKeys = credentialKeyRing(env);
  return {
    env,
    sql,
    store: createAssetStore(env),
    logger,
    credentialKeys,
    llm: createLlmRouter({ sql, providers: llmProvidersFromEnv(env) }),
    voices: [
      {
        provider: "edge-tts",
        extension: "mp3",
        voiceFor: (dimension) => dimension.tts_voice,
        synthesize: ({ text, voice, rate }) =>
          paidCall({ provider: "edge-tts", model: voice, estimate: { characters: text.length } }, async () => ({
            value: await speakWithEdgeTts({ text, voice, rate, wssUrl: env.EDGE_TTS_WSS_URL }),
            used: { characters: text.length },
          })),
      },
      {
        provider: "gemini-tts",
        extension: "wav",
        voiceFor: (dimension) => dimension.tts_fallback_voice ?? defaultGeminiVoice(dimension.language),
        // Gemini TTS takes no rate: the model speaks at its own pace (the cache key still carries it).
        synthesize: ({ text, voice, language }) =>
          paidCall(
            // About 15 characters a second of speech: the estimate the budget is asked with.
            { provider: "gemini-tts", model: env.GEMINI_TTS_MODEL, estimate: { characters: text.length, audio_seconds: Math.ceil(text.length / 15) } },
            async () => {
              const speech = await synthesizeWithGeminiTts({
                apiKey: env.GEMINI_API_KEY,
                baseUrl: env.GEMINI_BASE_URL,
                model: env.GEMINI_TTS_MODEL,
                text,
                voice,
                languageCode: geminiLanguageCode(language),
              });
              return { value: speech, used: { characters: text.length, audio_seconds: speech.durationMs / 1000 } };
            },
          ),
      },
    ],
    sources: createSourceClients(env),
    youtubeAccessToken: async ({ accountId, refreshToken }) => {
      // loadEnv requires the environment's client, so an account of the project default always has one.
      const client = (await youtubeClientFor(sql, credentialKeys, env, accountId))!;
      return await createYouTubeAccessTokenSource({ ...client, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL, refreshToken }).getAccessToken();
    },
  };
}
