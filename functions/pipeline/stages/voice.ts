import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { VoiceTrack, WordTiming } from "../../../shared/contracts/media.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { voiceKey } from "../../../shared/hashing.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../../shared/providers/errors.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { PipelineDeps } from "../deps.ts";
import type { StageMessage } from "../stage-runner.ts";
import { loadUnit } from "./unit.ts";
import { alignSceneStarts } from "./voice-alignment.ts";
import { z } from "zod";

const StoredWords = z.object({ duration_ms: z.number().int().positive(), words: z.array(WordTiming).min(1) }).strict();

/**
 * Voice: providers in order (Edge TTS first); the first to succeed wins. When every provider
 * fails the unit halts: production never degrades to a worse voice than the chain allows.
 * Audio and word timings are stored under the voice key, so a rerun reuses them.
 */
export async function runVoice(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "voice") throw new Error("not a voice task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const narration = (unit.script as { narration: string }).narration;
  const scenes = await deps.sql`select scene_index, narration from mdame.scenes where unit_id = ${task.unit_id} order by scene_index`;
  const dir = await makeScratchDir("voice");
  try {
    let track: VoiceTrack | null = null;
    const failures: string[] = [];
    let outage = false;
    for (const { provider, synthesize } of deps.voices) {
      const key = await voiceKey(narration, dimension.tts_voice, provider, dimension.tts_rate);
      const audioKey = `voice/${key}.mp3`;
      const wordsKey = `voice/${key}.json`;
      if (await deps.store.exists(audioKey) && await deps.store.exists(wordsKey)) {
        await deps.store.getFile(wordsKey, join(dir, "words.json"));
        const stored = StoredWords.parse(JSON.parse(await readFile(join(dir, "words.json"), "utf8")));
        track = { audio_key: audioKey, provider, voice: dimension.tts_voice, ...stored };
        log.info({ provider, audio_key: audioKey }, "voice reused from storage");
        break;
      }
      try {
        const t0 = Date.now();
        const speech = await synthesize({ text: narration, voice: dimension.tts_voice, rate: dimension.tts_rate });
        await writeFile(join(dir, "audio.mp3"), speech.audio);
        await writeFile(join(dir, "words.json"), JSON.stringify({ duration_ms: Math.round(speech.durationMs), words: speech.words }));
        await deps.store.putFile(audioKey, join(dir, "audio.mp3"), "audio/mpeg");
        await deps.store.putFile(wordsKey, join(dir, "words.json"), "application/json");
        track = { audio_key: audioKey, provider, voice: dimension.tts_voice, duration_ms: Math.round(speech.durationMs), words: speech.words };
        log.info({ provider, words: speech.words.length, duration_ms: track.duration_ms, took_ms: Date.now() - t0 }, "voice synthesised");
        break;
      } catch (error) {
        if (!(error instanceof ProviderUnavailableError || error instanceof ProviderRejectedError)) throw error;
        outage ||= error instanceof ProviderUnavailableError;
        failures.push(`${provider}: ${error.message}`);
        log.warn({ provider, err: error }, "voice provider failed; trying the next");
      }
    }
    if (!track) {
      // HALT: no voice below the chain. Outages are retried (bounded); refusals end the unit now.
      const message = `HALT: every voice provider failed (${failures.join("; ")})`;
      throw outage ? new Error(message) : new NonRetriableError(message);
    }
    const firstWords = alignSceneStarts(scenes.map((s) => s.narration as string), track.words);
    await deps.sql`select mdame.record_voice(${msgId}, ${task.unit_id}, ${task.step_token},
      ${deps.sql.json(VoiceTrack.parse(track) as never)}, ${deps.sql.json(firstWords)}, ${holder})`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
