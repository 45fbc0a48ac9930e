import { rm } from "node:fs/promises";
import { z } from "zod";
import { VoiceTrack } from "../../../shared/contracts/media.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { PipelineDeps } from "../deps.ts";
import type { StageMessage } from "../stage-runner.ts";
import { loadUnit } from "./unit.ts";
import { alignSceneStarts } from "./voice-alignment.ts";
import { speakNarration } from "./voice-chain.ts";

const FallbackVoice = z.object({ tts_fallback_voice: z.string().nullable() });

/**
 * Voice: the narration spoken by the voice chain (voice-chain.ts: Edge TTS, then Gemini TTS,
 * then HALT), stored under the voice key, and each scene's first spoken word recorded.
 */
export async function runVoice(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "voice") throw new Error("not a voice task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const narration = (unit.script as { narration: string }).narration;
  const [fallback] = await deps.sql`select tts_fallback_voice from mdame.get_dimensions(${dimension.id})`;
  const { tts_fallback_voice } = FallbackVoice.parse(fallback);
  const scenes = await deps.sql`select scene_index, narration from mdame.get_scenes(${task.unit_id}::uuid)`;
  const dir = await makeScratchDir("voice");
  try {
    const track = await speakNarration(deps.store, deps.voices, {
      text: narration,
      rate: dimension.tts_rate,
      dimension: { language: dimension.language, tts_voice: dimension.tts_voice, tts_fallback_voice },
    }, dir, log);
    const firstWords = alignSceneStarts(scenes.map((s) => s.narration as string), track.words);
    await deps.sql`select mdame.record_voice(${msgId}, ${task.unit_id}, ${task.step_token},
      ${deps.sql.json(VoiceTrack.parse(track) as never)}, ${deps.sql.json(firstWords)}, ${holder})`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
