import { rm } from "node:fs/promises";
import { getScenes } from "../../../shared/db/rpc/work-units.ts";
import { recordCacheLookup } from "../../../shared/db/rpc/weekly-reports.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { Stage } from "../stage-task.ts";
import { acceptedScript, loadUnit } from "./unit.ts";
import { alignSceneStarts } from "./voice-alignment.ts";
import { speakNarration } from "./voice-chain.ts";

/**
 * Voice: the narration spoken by the voice chain (voice-chain.ts: Edge TTS, then Gemini TTS,
 * then HALT), stored under the voice key, and each scene's first spoken word recorded.
 */
export const runVoice: Stage<"voice"> = async (task, { deps, logger: log }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const { narration } = acceptedScript(unit);
  const { tts_fallback_voice } = dimension;
  const scenes = await getScenes(deps.sql, task.unit_id);
  const dir = await makeScratchDir("voice");
  try {
    const track = await speakNarration(
      deps.store,
      deps.voices,
      {
        text: narration,
        rate: dimension.tts_rate,
        dimension: { language: dimension.language, tts_voice: dimension.tts_voice, tts_fallback_voice },
      },
      dir,
      log,
      (hit) =>
        recordCacheLookup(deps.sql, { cache: "tts", dimensionId: dimension.id, hit, runId: unit.run_id, unitId: unit.id, stage: "voice" })
          .catch((error) => log.warn({ err: error }, "voice cache lookup not recorded")),
    );
    const sceneFirstWords = alignSceneStarts(scenes.map((s) => s.narration), track.words);
    return { kind: "voice.recorded", voice: track, sceneFirstWords };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
