/**
 * On-disk state of the YouTube upload emulator, under `<data dir>/youtube/`, so sessions and
 * received bytes survive an emulator restart (a crash test restarts it mid-upload):
 *
 *   sessions/<upload_id>.json   the session: metadata, channel, total size, video id once done
 *   sessions/<upload_id>.bin    the bytes received so far (its size is the received count)
 *   videos/<video_id>.mp4       a completed upload
 *   videos/<video_id>.json      its record: resource, channel, project, size, sha256, path, thumbnail
 *   thumbnails/<video_id>.png|jpg   its custom thumbnail (thumbnails.ts)
 *   rules.json                  quota used and settings (rules.ts)
 *
 * The video id is derived from the upload id, so finishing an upload twice (after a crash
 * between the steps) yields the same single video.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { KeyedLock } from "../keyed-lock.ts";

export interface UploadSession {
  upload_id: string;
  created_at: string;
  channel: string;
  channel_id: string;
  parts: string[];
  content_type: string;
  /** Declared size in bytes; null until the client states it. */
  total: number | null;
  snippet: Record<string, unknown>;
  status: Record<string, unknown>;
  /** The OAuth client (Google Cloud project) whose token started the upload. */
  client_id?: string;
  /** YouTube locks the channel's uploads private: the video is private whatever was asked. */
  locked_private?: boolean;
  video_id?: string;
}

/** The custom thumbnail set on a video (thumbnails.ts). */
export interface ThumbnailRecord {
  path: string;
  sha256: string;
  size_bytes: number;
  mime_type: "image/png" | "image/jpeg";
  width: number;
  height: number;
  set_at: string;
  /** False when set before the video's processing succeeded: YouTube did not apply it. */
  applied: boolean;
}

export interface VideoRecord {
  id: string;
  title: string;
  channel: string;
  size_bytes: number;
  sha256: string;
  path: string;
  uploaded_at: string;
  client_id?: string;
  locked_private?: boolean;
  /** The `status` part as the upload asked it (before any lock). */
  requested_status?: Record<string, unknown>;
  resource: Record<string, unknown>;
  thumbnail?: ThumbnailRecord;
}

/** Sessions older than this are gone, as Google's expire after about a week. */
const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

async function writeJson(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2));
  await rename(tmp, file);
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const sizeOf = (file: string) => stat(file).then((s) => s.size, () => undefined);

function videoIdFor(uploadId: string): string {
  return createHash("sha256").update(uploadId).digest("base64url").slice(0, 11);
}

export class YouTubeStore {
  readonly root: string;
  #locks = new KeyedLock();

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "youtube");
  }

  #session(id: string, ext: "json" | "bin") {
    return path.join(this.root, "sessions", `${id}.${ext}`);
  }

  #video(id: string, ext: "json" | "mp4") {
    return path.join(this.root, "videos", `${id}.${ext}`);
  }

  /** Runs `fn` with the session to itself: PUTs to one session never interleave. */
  withLock<T>(uploadId: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(uploadId, fn);
  }

  async createSession(session: UploadSession): Promise<void> {
    await mkdir(path.join(this.root, "sessions"), { recursive: true });
    await writeJson(this.#session(session.upload_id, "json"), session);
  }

  async saveSession(session: UploadSession): Promise<void> {
    await writeJson(this.#session(session.upload_id, "json"), session);
  }

  /** The session, or undefined when unknown or expired (an expired one is deleted). */
  async getSession(uploadId: string): Promise<UploadSession | undefined> {
    if (!/^[A-Za-z0-9_-]{8,80}$/.test(uploadId)) return undefined;
    const text = await readFile(this.#session(uploadId, "json"), "utf8").catch(() => undefined);
    if (!text) return undefined;
    const session = JSON.parse(text) as UploadSession;
    if (!session.video_id && Date.now() - Date.parse(session.created_at) > SESSION_LIFETIME_MS) {
      await this.deleteSession(uploadId);
      return undefined;
    }
    return session;
  }

  async deleteSession(uploadId: string): Promise<void> {
    await rm(this.#session(uploadId, "json"), { force: true });
    await rm(this.#session(uploadId, "bin"), { force: true });
  }

  /** Bytes received so far. */
  async received(session: UploadSession): Promise<number> {
    return (await sizeOf(this.#session(session.upload_id, "bin"))) ??
      (await sizeOf(this.#video(videoIdFor(session.upload_id), "mp4"))) ?? 0;
  }

  openForAppend(session: UploadSession): Promise<FileHandle> {
    return open(this.#session(session.upload_id, "bin"), "a");
  }

  /**
   * Turns a fully received session into a stored video, uploaded at `uploadedAt`; safe to call
   * again after a crash (`created` is false then).
   */
  async finalize(
    session: UploadSession,
    uploadedAt: string,
    resource: (videoId: string, publishedAt: string) => Record<string, unknown>,
  ): Promise<{ record: VideoRecord; created: boolean }> {
    const videoId = videoIdFor(session.upload_id);
    const recordFile = this.#video(videoId, "json");
    const existing = await readFile(recordFile, "utf8").catch(() => undefined);
    if (existing) return { record: JSON.parse(existing) as VideoRecord, created: false };
    await mkdir(path.join(this.root, "videos"), { recursive: true });
    const mp4 = this.#video(videoId, "mp4");
    if ((await sizeOf(mp4)) === undefined) await rename(this.#session(session.upload_id, "bin"), mp4);
    const record: VideoRecord = {
      id: videoId,
      title: String(session.snippet.title ?? ""),
      channel: session.channel,
      size_bytes: (await sizeOf(mp4)) ?? 0,
      sha256: await sha256File(mp4),
      path: mp4,
      uploaded_at: uploadedAt,
      client_id: session.client_id,
      locked_private: session.locked_private === true,
      requested_status: session.status,
      resource: resource(videoId, uploadedAt),
    };
    await writeJson(recordFile, record);
    await this.saveSession({ ...session, video_id: videoId });
    return { record, created: true };
  }

  async getVideo(videoId: string): Promise<VideoRecord | undefined> {
    const text = await readFile(this.#video(videoId, "json"), "utf8").catch(() => undefined);
    return text ? JSON.parse(text) as VideoRecord : undefined;
  }

  /** Replaces a stored video's record (videos.update). */
  async saveVideo(record: VideoRecord): Promise<void> {
    await writeJson(this.#video(record.id, "json"), record);
  }

  async listVideos(): Promise<VideoRecord[]> {
    const dir = path.join(this.root, "videos");
    const names = await readdir(dir).catch(() => [] as string[]);
    const records = await Promise.all(
      names.filter((n) => n.endsWith(".json")).map(async (n) => JSON.parse(await readFile(path.join(dir, n), "utf8")) as VideoRecord),
    );
    return records.sort((a, b) => a.uploaded_at.localeCompare(b.uploaded_at));
  }

  async reset(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
