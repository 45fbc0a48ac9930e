/**
 * The seam between the publish stage and a platform (docs/reference/distribution.md). The stage owns what is
 * the same everywhere: one publication per account, its health, the sealed credentials opened in
 * memory, the upload session stored before the first byte so a crash resumes it, the published id
 * recorded at once, deferral instead of failure. An adapter owns what a platform does its own way:
 * its quota or rate ledger, its access tokens, how a session starts, resumes and ends, what its
 * refusals mean, its metadata and limits, and its caption safe zone.
 *
 * `Ticket` is what the adapter's ledger handed out for this call (released when the call failed
 * before the platform accepted anything); `Metadata` what the platform is told about the video.
 */
import type { CaptionProfile } from "../../../shared/contracts/captions.ts";
import type { DimensionPublishing } from "../../../shared/contracts/publishing.ts";
import type { DeferralReason, PublishTarget } from "../../../shared/db/rpc/publications.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import type { PipelineDeps } from "../deps.ts";

/** What the platform holds once every byte arrived and the post is done. */
export interface PublishedVideo {
  /** The platform's id of the video or post. */
  externalId: string;
  /** The visibility the platform gave it, when it says (an unaudited API client's uploads are locked private). */
  privacy?: string;
}

/** What a stored session holds, asked of the platform. */
export type SessionState = { complete: true; video: PublishedVideo } | { complete: false; nextByte: number };

/** A refusal the stage answers without failing: the account waits. */
type PlatformRefusal =
  /** The platform's quota, cap or rate is spent; the adapter corrected its ledger and says when to try again. */
  | { kind: "defer"; reason: DeferralReason; notBefore: Date | null }
  /** The platform refused the account's grant: it needs a new connect. */
  | { kind: "grant_refused"; reason: string };

export type Reservation<Ticket> = { kind: "reserved"; ticket: Ticket } | { kind: "deferred"; reason: DeferralReason; notBefore: Date | null };

export interface VideoFile {
  filePath: string;
  contentLength: number;
}

export interface MetadataInput {
  publishing: DimensionPublishing;
  /** The dimension's language (BCP-47). */
  language: string;
  /** The script fields a post shows. */
  script: { title: string; description: string; hashtags: string[] };
  /** The rendered video's length as the render measured it; null for a render that did not report it. */
  videoDurationS: number | null;
  now: Date;
}

export interface PlatformAdapter<Ticket, Metadata> {
  readonly platform: string;
  /** The caption safe-zone profile a render for this platform alone uses. */
  readonly captionProfile: CaptionProfile;
  /** What is told about the video; built once per attempt and sent with the session start only. */
  metadata(input: MetadataInput): Metadata;
  /**
   * Why this platform will not take this video for any account (a length outside the platform's
   * bounds, a privacy it cannot give), asked before any call: the publication is skipped with that
   * reason while the unit's other accounts publish. Null, or absent, when it will.
   */
  refuseVideo?(input: MetadataInput): string | null;
  /**
   * Takes this call's place in the platform's ledger, or says why and until when the account waits.
   * `resuming`: the publication has a stored session, so no new session will be opened.
   */
  reserve(deps: PipelineDeps, input: { target: PublishTarget; publicationId: string; resuming: boolean }): Promise<Reservation<Ticket>>;
  /** The platform accepted the call (the session opened): it counts, whatever happens to the bytes. */
  settle(deps: PipelineDeps, ticket: Ticket): Promise<void>;
  /** The call failed before the platform accepted anything: its place goes back. */
  release(deps: PipelineDeps, ticket: Ticket): Promise<void>;
  /**
   * A fresh access token from the account's refresh token. A platform that rotates refresh tokens
   * re-seals the new one over `target.credentials_enc` (a compare-and-swap: a reconnect meanwhile wins).
   */
  accessToken(deps: PipelineDeps, input: { target: PublishTarget; refreshToken: string }): Promise<string>;
  /** Opens an upload session and returns what identifies it (stored before the first byte). */
  startSession(deps: PipelineDeps, log: Logger, input: { ticket: Ticket; accessToken: string; metadata: Metadata; video: VideoFile }): Promise<string>;
  /** How much of a stored session the platform has, or the finished video. */
  querySession(deps: PipelineDeps, input: { ticket: Ticket; accessToken: string; session: string; contentLength: number }): Promise<SessionState>;
  /** Sends the file from `offset` and returns the finished video (waiting, within bounds, for the platform to finish it). */
  sendFrom(deps: PipelineDeps, log: Logger, input: {
    ticket: Ticket;
    accessToken: string;
    session: string;
    video: VideoFile;
    offset: number;
    onProgress: (confirmedBytes: number) => void;
  }): Promise<PublishedVideo>;
  /** Whether an error means the stored session is gone for good (the next attempt opens a new one). */
  sessionExpired(error: unknown): boolean;
  /** What a refusal of this call means, after correcting the ledger; null for any other error. */
  refusal(deps: PipelineDeps, ticket: Ticket, error: unknown): Promise<PlatformRefusal | null>;
  /** The visibility asked for, to compare with what the platform gave. */
  requestedPrivacy(metadata: Metadata): string;
}
