/**
 * The Meta emulator's records: apps, users with their Pages and Instagram professional accounts,
 * grants and tokens, Instagram media containers and media, Facebook Reels, and the settings. Times
 * are epoch ms on the emulator clock. Ids are decimal strings, as Graph's are.
 */
import { createHash, randomInt } from "node:crypto";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../shared/time.ts";

/** Permissions the login dialog knows (Facebook Login for Business and the Instagram API with Facebook Login). */
export const PERMISSIONS = [
  "public_profile",
  "email",
  "pages_show_list",
  "pages_read_engagement",
  "pages_manage_posts",
  "pages_manage_metadata",
  "read_insights",
  "publish_video",
  "business_management",
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_insights",
  "instagram_manage_comments",
] as const;

/** A short-lived user token lives about an hour ("expiring in hours"); a long-lived one about 60 days (`expires_in: 5183944`). */
export const SHORT_LIVED_S = 3600;
export const LONG_LIVED_S = 60 * 86_400;
/** Data access lasts 90 days after the user last consented (debug_token's `data_access_expires_at`). */
export const DATA_ACCESS_MS = 90 * DAY_MS;
export const CODE_LIFETIME_MS = 10 * MINUTE_MS;
/** A container not published within 24 hours is EXPIRED. */
export const CONTAINER_LIFETIME_MS = 24 * HOUR_MS;

export interface MetaApp {
  app_id: string;
  app_secret: string;
  name: string;
  /** Valid OAuth redirect URIs; empty accepts any http(s) URI. */
  redirect_uris: string[];
  /** Facebook Login for Business configurations: config_id -> the permissions it asks for. */
  configs: Record<string, string[]>;
}

export interface MetaUser {
  user_id: string;
  /** The name the login dialog's `login_hint` signs in with. */
  login: string;
  name: string;
  page_ids: string[];
}

export interface MetaPage {
  page_id: string;
  name: string;
  category: string;
  user_id: string;
  ig_user_id?: string;
}

/** An authorization code the dialog issued, waiting to be exchanged (memory only). */
export interface PendingCode {
  app_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge?: string;
  code_challenge_method?: "S256" | "plain";
  expires_at: number;
}

/** A Page to create for a user, with the Instagram professional account linked to it (null: none). */
export interface PageSpec {
  name: string;
  instagram_username: string | null;
}

export interface IgAccount {
  ig_user_id: string;
  username: string;
  name: string;
  page_id: string;
}

export type RevokeReason = "password_changed" | "app_removed";
/** Code-190 subcodes: 460 password changed (session invalidated), 458 app not installed (the user removed it), 463 expired. */
export const REVOKE_SUBCODES: Record<RevokeReason, number> = { password_changed: 460, app_removed: 458 };

/** A user's consent to an app: what it granted, and whether it was since revoked. */
export interface Grant {
  app_id: string;
  user_id: string;
  scopes: string[];
  consented_at: number;
  revoked?: RevokeReason;
}

export interface AccessToken {
  token: string;
  kind: "user" | "page";
  app_id: string;
  user_id: string;
  page_id?: string;
  issued_at: number;
  /** Null: never expires (a Page token got with a long-lived user token). */
  expires_at: number | null;
  long_lived: boolean;
  /** The user token a Page token was handed out with. */
  from_token?: string;
  revoked?: RevokeReason;
}

/** What processing made of the bytes: a video within the rules, or Graph's error for it. */
export type Verdict =
  | { ok: true; duration_s: number; width: number; height: number }
  | { ok: false; code: number; subcode?: number; message: string };

export interface UploadState {
  /** Declared by the first rupload call (or the download's length). */
  file_size?: number;
  /** When the last byte arrived or the download ended. */
  uploaded_at?: number;
  sha256?: string;
  verdict?: Verdict;
}

export interface IgContainer extends UploadState {
  id: string;
  ig_user_id: string;
  app_id: string;
  user_id: string;
  media_type: "REELS";
  caption: string;
  share_to_feed: boolean;
  cover_url?: string;
  thumb_offset?: number;
  source: "video_url" | "resumable";
  video_url?: string;
  created_at: number;
  published_media_id?: string;
}

export interface IgMedia {
  id: string;
  container_id: string;
  ig_user_id: string;
  caption: string;
  share_to_feed: boolean;
  cover_url?: string;
  thumb_offset?: number;
  shortcode: string;
  published_at: number;
  duration_s: number;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
}

export type ReelState = "PUBLISHED" | "DRAFT" | "SCHEDULED";

export interface FbReel extends UploadState {
  video_id: string;
  page_id: string;
  app_id: string;
  user_id: string;
  created_at: number;
  source?: "local" | "hosted";
  file_url?: string;
  /** Set by `upload_phase=finish`. */
  finished_at?: number;
  video_state?: ReelState;
  description?: string;
  title?: string;
  scheduled_publish_time?: number;
}

export interface MetaSettings {
  /** How long Instagram processes a container's complete bytes before FINISHED (or ERROR). */
  ig_processing_delay_ms: number;
  /** How long Facebook processes a Reel after `upload_phase=finish` before it is published (or in error). */
  fb_processing_delay_ms: number;
  /** API-published Instagram posts in a moving 24 hours (content_publishing_limit's `quota_total`). */
  ig_quota_total: number;
  /** API-published Reels per Page in a moving 24 hours. */
  fb_reels_per_24h: number;
  ig_min_duration_s: number;
  ig_max_duration_s: number;
  fb_min_duration_s: number;
  fb_max_duration_s: number;
  /** Largest video accepted, bytes. */
  max_video_bytes: number;
  /** What the insights figures are drawn from. */
  seed: string;
}

export const DEFAULT_SETTINGS: MetaSettings = {
  ig_processing_delay_ms: 5_000,
  fb_processing_delay_ms: 5_000,
  ig_quota_total: 50,
  fb_reels_per_24h: 30,
  ig_min_duration_s: 3,
  ig_max_duration_s: 15 * 60,
  fb_min_duration_s: 3,
  fb_max_duration_s: 90,
  max_video_bytes: 300 * 1024 * 1024,
  seed: "md-ame",
};

function digitsOf(text: string, count: number): string {
  const n = createHash("sha256").update(text).digest().readBigUInt64BE(0);
  return String(n % 10n ** BigInt(count)).padStart(count, "0");
}

/** Stable ids for the directory: the same login, Page name and username give the same ids after a reset. */
export const userIdFor = (login: string) => `10${digitsOf(`user\n${login}`, 13)}`;
export const pageIdFor = (userId: string, name: string) => `11${digitsOf(`page\n${userId}\n${name}`, 13)}`;
export const igUserIdFor = (pageId: string, username: string) => `178414${digitsOf(`ig\n${pageId}\n${username}`, 11)}`;

function randomDigits(count: number): string {
  let out = "";
  while (out.length < count) out += String(randomInt(0, 1_000_000_000)).padStart(9, "0");
  return out.slice(0, count);
}

export const newContainerId = () => `1789${randomDigits(13)}`;
export const newMediaId = () => `1790${randomDigits(13)}`;
export const newVideoId = () => `12${randomDigits(14)}`;

/** An Instagram shortcode (the `/reel/<shortcode>/` of a permalink), derived from the media id. */
export function shortcodeFor(mediaId: string): string {
  return createHash("sha256").update(`shortcode\n${mediaId}`).digest("base64url").slice(0, 11);
}
