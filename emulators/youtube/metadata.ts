/**
 * The video resource of an upload: what `videos.insert` accepts in its metadata, checked as YouTube
 * checks it, and the resource it answers (on completion, to a status query, and to `videos.list`).
 *
 * Accepted beyond title, description and tags: `snippet.categoryId` (an assignable category,
 * categories.ts; default 22), `snippet.defaultLanguage`, `snippet.defaultAudioLanguage` (BCP-47),
 * `status.privacyStatus` (default: the channel's default privacy, public unless the creator set
 * another), `status.publishAt` (ISO 8601, in the future on the emulator clock, and only with
 * privacyStatus `private`), `status.selfDeclaredMadeForKids` and `status.containsSyntheticMedia`
 * (booleans). A scheduled video reads `private` with its `publishAt` until that time passes on the
 * emulator clock, then `public` without it. The upload of a channel YouTube locks (rules.ts) reads
 * `private` (and never goes public) whatever was asked.
 */
import { randomBytes } from "node:crypto";
import { isAssignableCategory } from "./categories.ts";
import { apiError } from "./errors.ts";
import type { UploadSession, VideoRecord } from "./store.ts";

const PRIVACY = new Set(["public", "private", "unlisted"]);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DEFAULT_CATEGORY = "22";

const invalidMetadata = (message: string) => apiError(400, "invalidVideoMetadata", message);
const invalidPublishAt = (why: string) => apiError(400, "invalidPublishAt", `The request metadata specifies an invalid scheduled publishing time: ${why}`);

/** A well-formed BCP-47 tag, as Intl reads them (`en`, `pt-BR`, `zh-Hant-TW`, `es-419`). */
function isLanguageTag(value: unknown): boolean {
  if (typeof value !== "string" || value.length === 0 || value.length > 35) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** The metadata of an upload start, checked; `now` is the emulator clock's. */
export function validateMetadata(
  body: unknown,
  now: number,
  defaultPrivacy: string = "public",
): { snippet: Record<string, unknown>; status: Record<string, unknown> } | Response {
  if (body !== undefined && !isObject(body)) return invalidMetadata("The request metadata must be a JSON object.");
  const { snippet = {}, status = {} } = (body ?? {}) as { snippet?: unknown; status?: unknown };
  if (!isObject(snippet) || !isObject(status)) return invalidMetadata("snippet and status must be JSON objects.");
  const title = snippet.title;
  if (typeof title !== "string" || title.trim() === "" || title.length > 100 || /[<>]/.test(title)) {
    return apiError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.");
  }
  const description = snippet.description ?? "";
  if (typeof description !== "string" || new TextEncoder().encode(description).length > 5000 || /[<>]/.test(description)) {
    return apiError(400, "invalidDescription", "The request metadata specifies an invalid video description.");
  }
  const tags = snippet.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== "string") || tags.join(",").length > 500) {
    return apiError(400, "invalidTags", "The request metadata specifies invalid video keywords.");
  }
  const categoryId = snippet.categoryId === undefined ? DEFAULT_CATEGORY : String(snippet.categoryId);
  if (!isAssignableCategory(categoryId)) {
    return apiError(400, "invalidCategoryId", "The snippet.categoryId property specifies an invalid category ID.");
  }
  for (const key of ["defaultLanguage", "defaultAudioLanguage"] as const) {
    const language = snippet[key];
    if (language !== undefined && !isLanguageTag(language)) {
      return invalidMetadata(`snippet.${key} must be a BCP-47 language tag such as en or pt-BR.`);
    }
  }
  const privacy = status.privacyStatus ?? defaultPrivacy;
  if (typeof privacy !== "string" || !PRIVACY.has(privacy)) {
    return apiError(400, "invalidPrivacyStatus", "The request metadata specifies an invalid privacy status.");
  }
  for (const key of ["selfDeclaredMadeForKids", "containsSyntheticMedia"] as const) {
    if (status[key] !== undefined && typeof status[key] !== "boolean") return invalidMetadata(`status.${key} must be true or false.`);
  }
  const publishAt = status.publishAt;
  if (publishAt !== undefined) {
    if (typeof publishAt !== "string" || !ISO_INSTANT.test(publishAt) || Number.isNaN(Date.parse(publishAt))) {
      return invalidPublishAt("status.publishAt must be an ISO 8601 date-time such as 2026-12-24T18:00:00Z.");
    }
    if (privacy !== "private") return invalidPublishAt("a video can be scheduled only when its status.privacyStatus is private.");
    if (Date.parse(publishAt) <= now) return invalidPublishAt("status.publishAt is in the past.");
  }
  return { snippet: { ...snippet, description, tags, categoryId }, status: { ...status, privacyStatus: privacy } };
}

/** The resource as stored when the upload completes; private whatever was asked when the session was locked. */
export function videoResource(session: UploadSession, videoId: string, publishedAt: string): Record<string, unknown> {
  const snippet = session.snippet;
  const status = session.status;
  const resource: Record<string, unknown> = { kind: "youtube#video", etag: randomBytes(20).toString("base64url"), id: videoId };
  if (session.parts.includes("snippet")) {
    resource.snippet = {
      publishedAt,
      channelId: session.channel_id,
      title: snippet.title,
      description: snippet.description,
      channelTitle: session.channel,
      tags: snippet.tags,
      categoryId: String(snippet.categoryId ?? DEFAULT_CATEGORY),
      liveBroadcastContent: "none",
      ...(snippet.defaultLanguage ? { defaultLanguage: snippet.defaultLanguage } : {}),
      ...(snippet.defaultAudioLanguage ? { defaultAudioLanguage: snippet.defaultAudioLanguage } : {}),
      localized: { title: snippet.title, description: snippet.description },
    };
  }
  if (session.parts.includes("status")) {
    const madeForKids = status.selfDeclaredMadeForKids === true;
    resource.status = {
      uploadStatus: "uploaded",
      privacyStatus: session.locked_private ? "private" : status.privacyStatus,
      ...(typeof status.publishAt === "string" ? { publishAt: new Date(Date.parse(status.publishAt)).toISOString() } : {}),
      license: "youtube",
      embeddable: true,
      publicStatsViewable: true,
      madeForKids,
      selfDeclaredMadeForKids: madeForKids,
      containsSyntheticMedia: status.containsSyntheticMedia === true,
    };
  }
  return resource;
}

/** The resource as it reads at `now`: a scheduled video whose time has come is public. */
export function resourceAt(record: VideoRecord, now: number): Record<string, unknown> {
  const status = record.resource.status as Record<string, unknown> | undefined;
  if (!status || record.locked_private || typeof status.publishAt !== "string" || status.privacyStatus !== "private") return record.resource;
  if (Date.parse(status.publishAt) > now) return record.resource;
  const { publishAt: _, ...published } = status;
  return { ...record.resource, status: { ...published, privacyStatus: "public" } };
}

/** A completed upload as `GET /_emulator/youtube/videos` lists it: the file, and what was asked and what holds at `now`. */
export function listedVideo(record: VideoRecord, now: number, processed: boolean): Record<string, unknown> {
  const { resource: _, thumbnail, ...file } = record;
  const resource = resourceAt(record, now);
  const snippet = (resource.snippet ?? {}) as Record<string, unknown>;
  const status = (resource.status ?? {}) as Record<string, unknown>;
  const asked = (record.requested_status ?? {}) as Record<string, unknown>;
  return {
    ...file,
    client_id: record.client_id ?? null,
    privacy_status: status.privacyStatus ?? null,
    requested_privacy_status: asked.privacyStatus ?? null,
    locked_private: record.locked_private === true,
    publish_at: asked.publishAt ?? null,
    contains_synthetic_media: asked.containsSyntheticMedia ?? null,
    self_declared_made_for_kids: asked.selfDeclaredMadeForKids ?? null,
    category_id: snippet.categoryId ?? null,
    default_language: snippet.defaultLanguage ?? null,
    default_audio_language: snippet.defaultAudioLanguage ?? null,
    processing_status: processed ? "succeeded" : "processing",
    thumbnail: thumbnail ?? null,
  };
}
