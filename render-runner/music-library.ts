import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { z } from "zod";
import { HttpUrl, musicLicenseKeyOf, type MusicTrackRecord } from "../shared/contracts/callbacks.ts";
import type { MusicBed } from "../shared/contracts/dimension.ts";
import type { RenderJob } from "../shared/contracts/queue.ts";
import type { Logger } from "../shared/logging/logger.ts";
import { sha256Hex } from "../shared/hashing.ts";
import type { AssetStore } from "../shared/storage/asset-store.ts";

/**
 * A music library is a storage prefix of audio tracks, each with a licence sidecar next to it:
 * `music/calm/dawn.mp3` + `music/calm/dawn.license.json`. A track without a readable sidecar is
 * never used: every bed a video carries has a licence on record.
 */

/** `<track name>.license.json`: who made the track, under which licence, and where it came from. */
export const MusicLicense = z.object({
  title: z.string().trim().min(1).max(300),
  author: z.string().trim().min(1).max(300),
  license: z.string().trim().min(1).max(300),
  source_url: HttpUrl,
}).strict();
export type MusicLicense = z.infer<typeof MusicLicense>;

const TRACK_EXTENSIONS = [".mp3", ".m4a", ".aac", ".ogg", ".opus", ".flac", ".wav"] as const;
const LICENSE_SUFFIX = ".license.json";
/** Sidecars are a few hundred bytes; anything far larger is not one. */
const MAX_SIDECAR_BYTES = 64 * 1024;

/** The library's usable tracks: audio files with a sidecar, sorted by key. */
export function licensedTracks(keys: readonly string[]): Array<{ track_key: string; license_key: string }> {
  const present = new Set(keys);
  return keys
    .filter((key) => (TRACK_EXTENSIONS as readonly string[]).includes(extname(key).toLowerCase()))
    .map((key) => ({ track_key: key, license_key: musicLicenseKeyOf(key) }))
    .filter((t) => present.has(t.license_key))
    .sort((a, b) => (a.track_key < b.track_key ? -1 : a.track_key > b.track_key ? 1 : 0));
}

/** Index of the track a unit gets: the same unit always gets the same track of the same library. */
export async function pickTrackIndex(unitId: string, library: string, count: number): Promise<number> {
  if (count < 1) throw new Error("no tracks to pick from");
  const digest = await sha256Hex(`music:${library}:${unitId}`);
  return Number(BigInt(`0x${digest.slice(0, 12)}`) % BigInt(count));
}

/** Why a library gave no track; the render goes on without a bed and logs it. */
class MusicLibraryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MusicLibraryError";
  }
}

/**
 * The unit's track in the library and its licence record (the sidecar is fetched into `dir` and
 * checked). Throws MusicLibraryError when the library has no licensed track or the picked
 * track's sidecar is not a valid licence.
 */
async function resolveMusicTrack(store: AssetStore, library: string, unitId: string, dir: string): Promise<MusicTrackRecord> {
  const listed = await store.list(library);
  const tracks = licensedTracks(listed.map((a) => a.key));
  if (tracks.length === 0) throw new MusicLibraryError(`music library ${library} holds no track with a ${LICENSE_SUFFIX} sidecar`);
  const picked = tracks[await pickTrackIndex(unitId, library, tracks.length)];

  const sidecarPath = join(dir, `music${LICENSE_SUFFIX}`);
  const sidecarSize = listed.find((a) => a.key === picked.license_key)?.size_bytes ?? 0;
  if (sidecarSize > MAX_SIDECAR_BYTES) {
    throw new MusicLibraryError(`${picked.license_key} is ${sidecarSize} bytes; a licence sidecar is at most ${MAX_SIDECAR_BYTES}`);
  }
  await store.getFile(picked.license_key, sidecarPath);
  let license: MusicLicense;
  try {
    license = MusicLicense.parse(JSON.parse(await readFile(sidecarPath, "utf8")));
  } catch (error) {
    const why = error instanceof z.ZodError ? error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") : (error as Error).message;
    throw new MusicLibraryError(`${picked.license_key} is not a valid licence sidecar: ${why}`);
  }
  return { ...picked, ...license };
}

/** Fetches a resolved track into `dir`; returns its local path. */
async function fetchMusicTrack(store: AssetStore, record: MusicTrackRecord, dir: string): Promise<string> {
  const path = join(dir, `music${extname(record.track_key).toLowerCase()}`);
  await store.getFile(record.track_key, path);
  return path;
}

/**
 * The music bed of a render job: null when the job has none, or when its library gives no usable
 * track (logged: the video is still made, with the voice alone, and records no music). With
 * `fetch: false` only the record is resolved (a render already stored reports it again).
 */
export async function musicBedForJob(
  store: AssetStore,
  job: Pick<RenderJob, "music" | "unit_id">,
  dir: string,
  logger: Logger,
  options: { fetch: boolean },
): Promise<{ record: MusicTrackRecord; path: string | null; mix: MusicBed } | null> {
  if (!job.music) return null;
  try {
    const record = await resolveMusicTrack(store, job.music.library, job.unit_id, dir);
    const path = options.fetch ? await fetchMusicTrack(store, record, dir) : null;
    return { record, path, mix: job.music };
  } catch (error) {
    if (!(error instanceof MusicLibraryError)) throw error;
    logger.warn({ library: job.music.library, error: error.message, status: "skipped" }, "music library unusable; rendering the voice alone");
    return null;
  }
}
