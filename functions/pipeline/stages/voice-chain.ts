import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { VoiceTrack, WordTiming } from "../../../shared/contracts/media.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { voiceKey } from "../../../shared/hashing.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../../shared/providers/errors.ts";
import { VoiceRefusedError } from "../../../shared/providers/tts/speech.ts";
import { cachedCall } from "../../../shared/spend/metered.ts";
import type { AssetStore } from "../../../shared/storage/asset-store.ts";
import type { DimensionVoices, VoiceProvider } from "../deps.ts";

const StoredWords = z.object({ duration_ms: z.number().int().positive(), words: z.array(WordTiming).min(1) }).strict();

export interface Narration {
  text: string;
  rate: string;
  dimension: DimensionVoices;
}

/** Where a provider's track of a narration lives: content-addressed by the voice key. */
async function trackKeys(provider: VoiceProvider, narration: Narration) {
  const voice = provider.voiceFor(narration.dimension);
  const key = await voiceKey(narration.text, voice, provider.provider, narration.rate);
  return { voice, audioKey: `voice/${key}.${provider.extension}`, wordsKey: `voice/${key}.json` };
}

/** A track stored by an earlier attempt with any provider of the chain, the most preferred first. */
async function storedTrack(store: AssetStore, voices: VoiceProvider[], narration: Narration, dir: string): Promise<VoiceTrack | null> {
  for (const provider of voices) {
    const { voice, audioKey, wordsKey } = await trackKeys(provider, narration);
    if (await store.exists(audioKey) && await store.exists(wordsKey)) {
      const path = join(dir, `stored-${provider.provider}.json`);
      await store.getFile(wordsKey, path);
      const stored = StoredWords.parse(JSON.parse(await readFile(path, "utf8")));
      return { audio_key: audioKey, provider: provider.provider, voice, ...stored };
    }
  }
  return null;
}

/**
 * The voice chain: Edge TTS, then Gemini TTS, then HALT. Production never degrades to a worse
 * voice than the chain allows, so:
 * - a track any provider stored for this narration earlier is reused (a rerun makes no TTS call,
 *   and speaks with the voice the first run had);
 * - a provider that is unavailable (network, timeout, 5xx, 429, truncated audio: each after its
 *   own bounded retries) or refuses us access (401/403, an unknown model) hands over to the next;
 * - a refusal of the narration itself (the voice does not exist, a safety block, nothing to
 *   speak) halts at once: another provider would hide a broken configuration behind a different
 *   voice, or speak what a safety filter refused;
 * - when no provider is left, the unit halts with every provider's reason.
 * A halt is a NonRetriableError: the unit fails with the reasons, nothing is rendered.
 * `onLookup` hears whether a stored track was found (the TTS cache's hit rate).
 */
export async function speakNarration(
  store: AssetStore,
  voices: VoiceProvider[],
  narration: Narration,
  dir: string,
  log: Logger,
  onLookup?: (hit: boolean) => Promise<void>,
): Promise<VoiceTrack> {
  const stored = await storedTrack(store, voices, narration, dir);
  await onLookup?.(stored !== null);
  if (stored) {
    await cachedCall({ provider: stored.provider, model: stored.voice }, { characters: narration.text.length });
    log.info({ provider: stored.provider, audio_key: stored.audio_key, status: "skipped" }, "voice reused from storage");
    return stored;
  }
  const failures: string[] = [];
  for (const provider of voices) {
    const { voice, audioKey, wordsKey } = await trackKeys(provider, narration);
    try {
      const t0 = Date.now();
      const speech = await provider.synthesize({ text: narration.text, voice, rate: narration.rate, language: narration.dimension.language });
      const audioPath = join(dir, `audio.${speech.extension}`);
      const wordsPath = join(dir, "words.json");
      const track = VoiceTrack.parse({
        audio_key: audioKey,
        provider: provider.provider,
        voice,
        duration_ms: Math.round(speech.durationMs),
        words: speech.words,
      });
      await writeFile(audioPath, speech.audio);
      await writeFile(wordsPath, JSON.stringify({ duration_ms: track.duration_ms, words: track.words }));
      // Audio first: a words file is the mark of a complete track.
      await store.putFile(audioKey, audioPath, speech.contentType);
      await store.putFile(wordsKey, wordsPath, "application/json");
      await rm(audioPath, { force: true });
      log.info(
        { provider: provider.provider, voice, words: track.words.length, duration_ms: track.duration_ms, took_ms: Date.now() - t0, status: "succeeded" },
        "voice synthesised",
      );
      return track;
    } catch (error) {
      if (error instanceof VoiceRefusedError) {
        failures.push(`${provider.provider} refused the narration (${error.reason}): ${error.message}`);
        log.error({ provider: provider.provider, err: error, status: "refused" }, "voice refused: halting");
        throw new NonRetriableError(`HALT: ${failures.join("; ")}`);
      }
      if (!(error instanceof ProviderUnavailableError || error instanceof ProviderRejectedError)) throw error;
      failures.push(`${provider.provider}: ${error.message}`);
      log.warn({ provider: provider.provider, err: error, status: "retrying" }, "voice provider failed; trying the next");
    }
  }
  throw new NonRetriableError(`HALT: no voice provider could speak the narration (${failures.join("; ")})`);
}
