/**
 * What the Instagram and Facebook adapters share (instagram.ts, facebook.ts): the Meta app and
 * hosts from the environment, the account's tokens, what neither platform takes, how long a post
 * is waited for, and what Meta's refusals mean for the account.
 */
import process from "node:process";
import { ChannelCapReachedError, NotFoundError } from "../../../shared/db/errors.ts";
import { recordMetaRefusal } from "../../../shared/db/rpc/meta-posts.ts";
import type { PublishTarget } from "../../../shared/db/rpc/publications.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import type { GraphHost } from "../../../shared/providers/meta/graph.ts";
import type { MetaApp } from "../../../shared/providers/meta/login.ts";
import { classifyMetaRefusal } from "../../../shared/providers/meta/refusals.ts";
import { DEFAULT_PART_BYTES, uploadFrom, uploadUrl } from "../../../shared/providers/meta/rupload.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import type { PipelineDeps } from "../deps.ts";
import type { MetadataInput, PlatformAdapter } from "./adapter.ts";

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, got ${value}`);
  return n;
}

/** Bytes per upload POST (rupload.ts); crash tests set a small one so a video takes several. */
export const PART_BYTES = positiveInteger("MDAME_META_PART_BYTES", process.env.MDAME_META_PART_BYTES) ?? DEFAULT_PART_BYTES;
/** How long one attempt waits for Meta to process a container or a Reel before the task's retry asks again. */
export const POLL_TIMEOUT_MS = positiveInteger("MDAME_META_POLL_TIMEOUT_MS", process.env.MDAME_META_POLL_TIMEOUT_MS) ?? 5 * 60_000;
/** How often a container's or a Reel's status is asked while Meta processes it. */
export const POLL_INTERVAL_MS = positiveInteger("MDAME_META_POLL_INTERVAL_MS", process.env.MDAME_META_POLL_INTERVAL_MS) ?? 3_000;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Meta's publishing APIs take no privacy: a Page's Reels are public, as is an Instagram Reel of a public account. */
export const META_PRIVACY = "public";

/** Where Graph is, the version spoken, and the upload host. */
export function hostOf(deps: PipelineDeps): GraphHost & { uploadBaseUrl: string } {
  return { graphBaseUrl: deps.env.META_GRAPH_BASE_URL, version: deps.env.META_GRAPH_VERSION, uploadBaseUrl: deps.env.META_UPLOAD_BASE_URL };
}

export function appOf(deps: PipelineDeps): MetaApp {
  const { META_APP_ID: appId, META_APP_SECRET: appSecret } = deps.env;
  if (!appId || !appSecret) throw new NonRetriableError("Instagram and Facebook accounts publish with a Meta app: set META_APP_ID and META_APP_SECRET");
  return { appId, appSecret };
}

/** The account's id on the platform (IG user id, Page id), recorded when it was connected. */
export function platformIdOf(target: PublishTarget): string {
  if (!target.channel_id) {
    throw new NonRetriableError(
      `${target.platform} account ${target.channel_handle} has no recorded ${target.platform === "instagram" ? "IG user" : "Page"} id: connect it again`,
    );
  }
  return target.channel_id;
}

/** The bounds of a platform's Reels and what the dimension asks: the reason it will not take the video, or null. */
export function refuseVideo(name: string, bounds: { minS: number; maxS: number }, input: MetadataInput): string | null {
  const privacy = input.publishing.privacy_status;
  if (privacy !== "public") {
    return `the dimension publishes ${privacy}, and ${name}'s publishing API has no ${privacy} Reels: a Reel there is public`;
  }
  const length = input.videoDurationS;
  if (length !== null && (length < bounds.minS || length > bounds.maxS)) {
    return `the video lasts ${length.toFixed(1)} s; ${name} Reels last ${bounds.minS} to ${bounds.maxS} s`;
  }
  return null;
}

/** A stored session, parsed by its schema; a malformed one is a fault no retry mends. */
export function parseSession<T>(text: string, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, name: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new NonRetriableError(`the stored ${name} session is not JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new NonRetriableError(`the stored ${name} session is malformed`);
  return parsed.data;
}

/** The ticket both adapters hand out: the publication's place in its account's window. */
export interface MetaTicket {
  accountId: string;
  publicationId: string;
  /** The IG user id or the Page id. */
  platformId: string;
}

/** What a failure means for a Meta account: the window is full (the ledger's or Meta's), the grant is gone, Meta throttles. */
export const metaRefusal: PlatformAdapter<MetaTicket, unknown>["refusal"] = async (deps, ticket, error) => {
  if (error instanceof ChannelCapReachedError) return { kind: "defer", reason: "channel_cap", notBefore: error.notBefore };
  const refusal = classifyMetaRefusal(error);
  if (refusal?.kind === "needs_reconnect") return { kind: "grant_refused", reason: refusal.reason };
  if (refusal?.kind === "rate_limited") return { kind: "defer", reason: "rate_limited", notBefore: refusal.notBefore };
  if (refusal?.kind === "posting_limit") {
    try {
      return { kind: "defer", reason: "channel_cap", notBefore: await recordMetaRefusal(deps.sql, ticket.publicationId) };
    } catch (recorded) {
      if (!(recorded instanceof NotFoundError)) throw recorded;
      return { kind: "defer", reason: "channel_cap", notBefore: new Date(Date.now() + 60 * 60_000) };
    }
  }
  return null;
};

/** Polls `read` until `done` says what it holds, for POLL_TIMEOUT_MS at most; past it the next attempt asks again. */
export async function pollUntil<S, R>(what: string, read: () => Promise<S>, done: (state: S) => R | null): Promise<R> {
  const deadline = Date.now() + POLL_TIMEOUT_MS;
  for (;;) {
    const result = done(await read());
    if (result !== null) return result;
    if (Date.now() > deadline) throw new Error(`Meta did not finish ${what} within ${Math.round(POLL_TIMEOUT_MS / 1000)} s; the next attempt asks again`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Sends what the upload host lacks of a session's file, from `offset` (nothing when it has it all),
 * then passes the failpoint both Meta adapters' crash tests stop at after the bytes.
 */
export async function uploadRest(
  deps: PipelineDeps,
  input: {
    kind: "instagram" | "facebook";
    id: string;
    accessToken: string;
    filePath: string;
    fileSize: number;
    offset: number;
    onProgress?: Parameters<typeof uploadFrom>[0]["onProgress"];
  },
): Promise<void> {
  const host = hostOf(deps);
  if (input.offset < input.fileSize) {
    await uploadFrom({
      url: uploadUrl(host.uploadBaseUrl, host.version, input.kind, input.id),
      token: input.accessToken,
      filePath: input.filePath,
      fileSize: input.fileSize,
      offset: input.offset,
      partBytes: PART_BYTES,
      onProgress: input.onProgress,
    });
  }
  failpoint("publish.meta-uploaded");
}
