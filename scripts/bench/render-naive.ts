import { join } from "node:path";
import { audioEncoderArgs, planFrames, RENDER_FORMAT, type RenderPlan, SCALE_FLAGS, videoEncoderArgs } from "../../render-runner/ffmpeg-render.ts";
import { buildRenderAudioGraph, measureRenderAudio } from "../../render-runner/music-mix.ts";
import { escapeFilterValue, runFfmpeg } from "../../shared/media/ffmpeg.ts";

/**
 * The same video made the way a straightforward script makes it, one FFmpeg step per stage:
 * encode each scene, concatenate them (concat filter, re-encoded), burn the captions
 * (re-encoded), mux the normalised audio (video copied). Every encode uses the render's own
 * settings; it produces what the one-invocation render produces, for comparison.
 */
export async function renderNaively(plan: RenderPlan, workDir: string, options: { ffmpegPath?: string } = {}): Promise<void> {
  const { width, height, fps } = RENDER_FORMAT;
  const ffmpegPath = options.ffmpegPath;
  const video = videoEncoderArgs(plan);

  const scenes: string[] = [];
  for (const [i, clip] of plan.clips.entries()) {
    const out = join(workDir, `naive-scene-${i}.mp4`);
    await runFfmpeg([
      "-stream_loop",
      "-1",
      "-i",
      clip.path,
      "-vf",
      `fps=${fps},scale=${width}:${height}:force_original_aspect_ratio=increase:flags=${SCALE_FLAGS},crop=${width}:${height},setsar=1,format=yuv420p`,
      "-frames:v",
      String(clip.frames),
      "-an",
      ...video,
      "-y",
      out,
    ], { ffmpegPath });
    scenes.push(out);
  }

  const concat = join(workDir, "naive-concat.mp4");
  await runFfmpeg([
    ...scenes.flatMap((s) => ["-i", s]),
    "-filter_complex",
    `${scenes.map((_, i) => `[${i}:v]`).join("")}concat=n=${scenes.length}:v=1:a=0[v]`,
    "-map",
    "[v]",
    ...video,
    "-y",
    concat,
  ], { ffmpegPath });

  const captioned = join(workDir, "naive-captioned.mp4");
  const fontsDir = plan.fontsDir ? `:fontsdir=${escapeFilterValue(plan.fontsDir)}` : "";
  await runFfmpeg([
    "-i",
    concat,
    "-vf",
    plan.subtitlesPath ? `ass=filename=${escapeFilterValue(plan.subtitlesPath)}${fontsDir}` : "null",
    ...video,
    "-y",
    captioned,
  ], { ffmpegPath });

  const durationS = planFrames(plan) / fps;
  const audio = await measureRenderAudio({ voicePath: plan.audioPath, musicPath: plan.music?.path ?? null, durationS }, plan.music?.mix ?? null, {
    ffmpegPath,
  });
  const inputs = ["-i", captioned, "-i", plan.audioPath];
  if (plan.music) inputs.push("-stream_loop", "-1", "-i", plan.music.path);
  const graph = buildRenderAudioGraph({ voice: 1, music: plan.music ? 2 : null, durationS }, audio.levels, plan.music?.mix ?? null, audio.final, "aout");
  await runFfmpeg([
    ...inputs,
    "-filter_complex",
    graph.join(";"),
    "-map",
    "0:v",
    "-map",
    "[aout]",
    "-c:v",
    "copy",
    ...audioEncoderArgs(),
    "-movflags",
    "+faststart",
    "-y",
    plan.outPath,
  ], { ffmpegPath });
}
