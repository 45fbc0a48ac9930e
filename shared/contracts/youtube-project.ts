import { z } from "zod";
import { timestamp } from "./columns.ts";
import { OAuthClientId } from "./account.ts";
import { oneLine } from "./text.ts";

/**
 * Google projects (OAuth clients) through the operator API
 * (functions/pipeline/operator/youtube-project-routes.ts): `mdame youtube-project add|list|remove`,
 * and the client `mdame account connect youtube --project <name>` signs in with. Each project has
 * its own daily YouTube buckets (docs/reference/distribution.md); a client secret travels inward once, in
 * RegisterYouTubeProjectBody, and out only to the connect, in YouTubeProjectClient.
 */

/** The project of the environment's client (GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET). */
export const DEFAULT_YOUTUBE_PROJECT = "default";

/**
 * A Google project's daily YouTube buckets (mdame.youtube_bucket_size): uploads (videos.insert
 * calls), units (Data API units), stats (videos.batchGetStats units, apart since 3 Jun 2026) and
 * analytics (the Analytics API's reports.query calls).
 */
export const YouTubeBucket = z.enum(["uploads", "units", "stats", "analytics"]);
export type YouTubeBucket = z.infer<typeof YouTubeBucket>;

/** Whether a client id is the environment's (GOOGLE_OAUTH_CLIENT_ID), or `default`, which accounts connected before clients were recorded carry. */
export function isEnvironmentClient(oauthClientId: string, env: { GOOGLE_OAUTH_CLIENT_ID?: string | undefined }): boolean {
  return oauthClientId === DEFAULT_YOUTUBE_PROJECT || oauthClientId === env.GOOGLE_OAUTH_CLIENT_ID;
}

/** A project's name as the API shows it: its registered one, `default` for the environment's client, else null. */
export function projectName(
  row: { name: string | null; oauth_client_id: string; client_secret_enc: string | null },
  env: { GOOGLE_OAUTH_CLIENT_ID?: string | undefined },
): string | null {
  if (row.name !== null) return row.name;
  return row.client_secret_enc === null && isEnvironmentClient(row.oauth_client_id, env) ? DEFAULT_YOUTUBE_PROJECT : null;
}

/** A registered project's short name: lower-case letters, digits and dashes (`default` is the environment's). */
export const YouTubeProjectName = z.string().trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "must be 1 to 40 lower-case letters, digits or dashes, starting with a letter or digit");

const BucketSize = z.number().int().min(0, "must be zero or more").max(100_000_000, "must be at most 100000000");

/** Body of POST /pipeline/youtube-projects: the server seals the secret with CREDENTIALS_KEY before storing it. */
export const RegisterYouTubeProjectBody = z.object({
  name: YouTubeProjectName.refine(
    (name) => name !== DEFAULT_YOUTUBE_PROJECT,
    "default is the environment's client (GOOGLE_OAUTH_CLIENT_ID): choose another name",
  ),
  oauth_client_id: OAuthClientId,
  /** The OAuth client's secret (a Desktop app client of the project). */
  client_secret: oneLine(z.string().trim().min(1, "must not be empty").max(512, "must be at most 512 characters")),
  /** `videos.insert` calls a day YouTube granted the project; YouTube's default (100) when absent. */
  upload_calls_per_day: BucketSize.optional(),
  /** Data API units a day; 10,000 when absent. */
  api_units_per_day: BucketSize.optional(),
  /** YouTube Analytics reports.query calls a day; 10,000 when absent. */
  analytics_queries_per_day: BucketSize.optional(),
  /** videos.batchGetStats units a day; 10,000 when absent. */
  stats_units_per_day: BucketSize.optional(),
}).strict();
export type RegisterYouTubeProjectBody = z.infer<typeof RegisterYouTubeProjectBody>;

/**
 * Whose secret refreshes the tokens of a project's accounts: `registered` (its own, sealed),
 * `environment` (GOOGLE_OAUTH_CLIENT_SECRET: the project default), or `unregistered` (a client met
 * through a connect whose secret the engine does not hold: its tokens are refreshed with the
 * environment's client, which Google refuses unless it is that client; register it).
 */
const YouTubeProjectClientSource = z.enum(["registered", "environment", "unregistered"]);

/** A project as the API shows it: never its secret. */
export const YouTubeProject = z.object({
  /** The registered name; `default` for the environment's client; null for an unregistered client. */
  name: z.string().nullable(),
  oauth_client_id: z.string(),
  client: YouTubeProjectClientSource,
  upload_calls_per_day: z.number().int(),
  api_units_per_day: z.number().int(),
  analytics_queries_per_day: z.number().int(),
  stats_units_per_day: z.number().int(),
  /** YouTube accounts holding credentials connected through it, and how many of them are active. */
  accounts: z.number().int(),
  active_accounts: z.number().int(),
  /** Uploads a day its active accounts are planned to make: their active dimensions' daily_limit, summed. */
  planned_uploads_per_day: z.number().int(),
  /** `videos.insert` calls charged on the current Pacific quota day. */
  uploads_today: z.number().int(),
  created_at: timestamp,
}).strict();
export type YouTubeProject = z.infer<typeof YouTubeProject>;

/** GET /pipeline/youtube-projects. */
export const YouTubeProjectList = z.object({ projects: z.array(YouTubeProject) }).strict();
export type YouTubeProjectList = z.infer<typeof YouTubeProjectList>;

/** GET /pipeline/youtube-projects/:name/client: what the connect's OAuth flow signs in with. */
export const YouTubeProjectClient = z.object({
  name: z.string(),
  oauth_client_id: z.string(),
  client_secret: z.string(),
}).strict();
export type YouTubeProjectClient = z.infer<typeof YouTubeProjectClient>;

/** Answer of DELETE /pipeline/youtube-projects/:name: the project unregistered (its ledger history stays). */
export const RemovedYouTubeProject = z.object({ name: z.string(), oauth_client_id: z.string() }).strict();
export type RemovedYouTubeProject = z.infer<typeof RemovedYouTubeProject>;
