import type { WordTiming } from "../shared/contracts/media.ts";
import type { RenderJob } from "../shared/contracts/queue.ts";
import { NonRetriableError } from "../shared/errors.ts";

/** Silence shown after the voice ends, so the last word is not cut by the end of the video. */
export const DEFAULT_TAIL_MS = 500;

/** The job's scene list does not describe a playable timeline; retrying cannot help. */
export class TimelineError extends NonRetriableError {
  constructor(message: string) {
    super(message);
    this.name = "TimelineError";
  }
}

/** One scene's slot in the video: [start, end) in milliseconds and in frames. */
interface SceneSlot {
  index: number;
  asset_key: string;
  start_ms: number;
  end_ms: number;
  start_frame: number;
  /** Frames of this scene; end_frame - start_frame, always >= 1. */
  frames: number;
}

export interface Timeline {
  fps: number;
  /** Audio duration plus tail. */
  total_ms: number;
  total_frames: number;
  scenes: SceneSlot[];
}

/**
 * Lays the scenes over the voice track: scene 0 starts at 0, scene i at the offset of its first
 * word, each ends where the next starts and the last at audio end + tail. Boundaries are snapped
 * to whole frames so the concatenated clips add up to exactly `total_frames`.
 */
export function computeTimeline(
  words: readonly WordTiming[],
  scenes: RenderJob["scenes"],
  audioDurationMs: number,
  options: { fps?: number; tailMs?: number } = {},
): Timeline {
  const fps = options.fps ?? 30;
  const tailMs = options.tailMs ?? DEFAULT_TAIL_MS;
  if (scenes.length === 0) throw new TimelineError("a render needs at least one scene");
  if (!(audioDurationMs > 0)) throw new TimelineError("audio duration must be positive");
  const ordered = [...scenes].sort((a, b) => a.index - b.index);
  const totalMs = audioDurationMs + tailMs;
  const toFrame = (ms: number) => Math.round((ms * fps) / 1000);
  const totalFrames = toFrame(totalMs);

  const starts = ordered.map((scene, i) => {
    if (i > 0 && scene.index === ordered[i - 1].index) throw new TimelineError(`scene index ${scene.index} appears twice`);
    if (i === 0) return 0;
    const word = words[scene.first_word];
    if (!word) throw new TimelineError(`scene ${scene.index} starts at word ${scene.first_word}, but there are ${words.length} words`);
    if (word.offset_ms >= audioDurationMs) {
      throw new TimelineError(`scene ${scene.index} starts at ${word.offset_ms} ms, past the audio end (${audioDurationMs} ms)`);
    }
    return word.offset_ms;
  });

  const slots: SceneSlot[] = ordered.map((scene, i) => {
    const startMs = starts[i];
    const endMs = i + 1 < ordered.length ? starts[i + 1] : totalMs;
    const startFrame = toFrame(startMs);
    const endFrame = i + 1 < ordered.length ? toFrame(endMs) : totalFrames;
    if (endFrame <= startFrame) {
      throw new TimelineError(
        `scene ${scene.index} would last ${endMs - startMs} ms (${
          endFrame - startFrame
        } frames); scenes must start at increasing word offsets at least one frame apart`,
      );
    }
    return { index: scene.index, asset_key: scene.asset_key, start_ms: startMs, end_ms: endMs, start_frame: startFrame, frames: endFrame - startFrame };
  });

  return { fps, total_ms: totalMs, total_frames: totalFrames, scenes: slots };
}
