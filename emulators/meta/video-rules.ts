/**
 * What Meta's processing makes of uploaded bytes (mp4.ts reads them), for each product:
 *
 * - Instagram Reels (POST /{ig-user-id}/media reference, "Reels specifications"): MOV or MP4, 3 s
 *   to 15 minutes, at most 300 MB (all settable, admin.ts). A violation makes the container ERROR
 *   with subcode 2207026 (unsupported video); a `thumb_offset` not below the video's length makes
 *   it ERROR with Graph's documented code 1, subcode 2207057 "Thumbnail offset must be greater
 *   than or equal to 0 and less than video duration, i.e. {video-length}".
 * - Facebook Reels (Reels Publishing API, "Video Specifications"): 3 to 90 seconds, aspect ratio
 *   9 x 16, at least 540 x 960 pixels. A violation puts the Reel's processing phase in error.
 *
 * The checks the emulator does not make (codecs, frame rate, bitrates, edit lists, moov position)
 * are listed in docs/reference/meta-emulator.md.
 */
import type { MetaSettings, Verdict } from "./model.ts";
import { probeMp4 } from "./mp4.ts";

/** The verdict an armed `container_error` fault gives: Instagram's documented "unknown upload error". */
export const UNKNOWN_UPLOAD_ERROR: Verdict = { ok: false, code: -1, subcode: 2207053, message: "unknown upload error" };
/** A `video_url` Instagram could not download (subcode 2207052, "the media URI doesn't meet our requirements"). */
export const downloadFailed = (detail: string): Verdict => ({
  ok: false,
  code: 9004,
  subcode: 2207052,
  message: `Media download has failed. The media URI doesn't meet our requirements. (${detail})`,
});
/** A download that took too long (code -2, subcode 2207003). */
export const downloadTimedOut: Verdict = { ok: false, code: -2, subcode: 2207003, message: "It takes too long to download the media." };

const unsupported = (detail: string): Verdict => ({
  ok: false,
  code: 100,
  subcode: 2207026,
  message: `The video format is not supported. Please check spec for supported format. (${detail})`,
});

/** Instagram's verdict on a container's bytes. */
export async function instagramVerdict(file: string, sizeBytes: number, settings: MetaSettings, thumbOffsetMs?: number): Promise<Verdict> {
  if (sizeBytes > settings.max_video_bytes) return unsupported(`${sizeBytes} bytes is over the ${settings.max_video_bytes}-byte maximum`);
  const probe = await probeMp4(file);
  if (!probe.ok) return unsupported(probe.reason);
  const { durationS, width, height } = probe.facts;
  if (width === 0 || height === 0) return unsupported("the file has no video track");
  if (durationS < settings.ig_min_duration_s || durationS > settings.ig_max_duration_s) {
    return unsupported(`the video is ${round(durationS)} s long; Reels must be ${settings.ig_min_duration_s} to ${settings.ig_max_duration_s} seconds`);
  }
  const lengthMs = Math.round(durationS * 1000);
  if (thumbOffsetMs !== undefined && thumbOffsetMs >= lengthMs) {
    return {
      ok: false,
      code: 1,
      subcode: 2207057,
      message: `Thumbnail offset must be greater than or equal to 0 and less than video duration, i.e. ${lengthMs}`,
    };
  }
  return { ok: true, duration_s: durationS, width, height };
}

/** Facebook's verdict on a Reel's bytes. */
export async function facebookVerdict(file: string, sizeBytes: number, settings: MetaSettings): Promise<Verdict> {
  const refused = (message: string): Verdict => ({ ok: false, code: 6000, message });
  if (sizeBytes > settings.max_video_bytes) return refused(`The video is ${sizeBytes} bytes, over the ${settings.max_video_bytes}-byte maximum.`);
  const probe = await probeMp4(file);
  if (!probe.ok) return refused(`The video file could not be processed: ${probe.reason}.`);
  const { durationS, width, height } = probe.facts;
  if (width === 0 || height === 0) return refused("The video file has no video track.");
  if (durationS < settings.fb_min_duration_s || durationS > settings.fb_max_duration_s) {
    return refused(`The reel is ${round(durationS)} s long; Reels must be ${settings.fb_min_duration_s} to ${settings.fb_max_duration_s} seconds.`);
  }
  if (Math.abs(width / height - 9 / 16) > 0.01) return refused(`The reel is ${width} x ${height}; its aspect ratio must be 9 x 16.`);
  if (width < 540 || height < 960) return refused(`The reel is ${width} x ${height}; the minimum resolution is 540 x 960.`);
  return { ok: true, duration_s: durationS, width, height };
}

const round = (n: number) => Math.round(n * 100) / 100;
