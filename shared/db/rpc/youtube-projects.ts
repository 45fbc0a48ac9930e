/** Google project RPCs (`mdame youtube-project ...`); rows carry the sealed client secret, never opened here. */
import { z } from "zod";
import { YouTubeProject } from "../../contracts/youtube-project.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow, swapped } from "./query.ts";

/** A row of mdame.youtube_projects: the client and its daily buckets as the API shows them (YouTubeProject), its dates, name and sealed secret. */
const YouTubeProjectRow = YouTubeProject.pick({
  oauth_client_id: true,
  upload_calls_per_day: true,
  api_units_per_day: true,
  analytics_queries_per_day: true,
  stats_units_per_day: true,
})
  .extend({
    created_at: z.date(),
    updated_at: z.date(),
    /** The name it was registered under; null when met only through connects (the environment's client). */
    name: z.string().nullable(),
    /** The client secret sealed for this client id (shared/crypto/client-secrets.ts); null when the environment's serves it. */
    client_secret_enc: z.string().nullable(),
  }).strict();
type YouTubeProjectRow = z.infer<typeof YouTubeProjectRow>;

/** A project with what is planned and spent on it (mdame.get_youtube_projects): the row and the API's figures of its accounts and uploads. */
export const YouTubeProjectPlan = YouTubeProjectRow.omit({ updated_at: true })
  .extend(YouTubeProject.pick({ accounts: true, active_accounts: true, planned_uploads_per_day: true, uploads_today: true }).shape)
  .strict();
export type YouTubeProjectPlan = z.infer<typeof YouTubeProjectPlan>;

/** Every project, named ones first. */
export function getYouTubeProjects(sql: Queryable): Promise<YouTubeProjectPlan[]> {
  return manyRows("get_youtube_projects", YouTubeProjectPlan, sql`select * from mdame.get_youtube_projects()`);
}

/** Registers a project under `name` with its secret sealed for its client id; absent sizes are YouTube's defaults (or the row's). */
export function registerYouTubeProject(
  sql: Queryable,
  p: {
    name: string;
    oauthClientId: string;
    sealedSecret: string;
    uploadCallsPerDay?: number;
    apiUnitsPerDay?: number;
    analyticsQueriesPerDay?: number;
    statsUnitsPerDay?: number;
  },
): Promise<YouTubeProjectRow> {
  return oneRow(
    "register_youtube_project",
    YouTubeProjectRow,
    sql`
    select * from mdame.register_youtube_project(${p.name}::text, ${p.oauthClientId}::text, ${p.sealedSecret}::text,
      ${p.uploadCallsPerDay ?? null}::integer, ${p.apiUnitsPerDay ?? null}::integer, ${p.analyticsQueriesPerDay ?? null}::integer,
      ${p.statsUnitsPerDay ?? null}::integer)`,
  );
}

/** Unregisters the project named `name` (refused while accounts with credentials use it); answers it as it was. */
export function removeYouTubeProject(sql: Queryable, name: string): Promise<YouTubeProjectRow> {
  return oneRow("remove_youtube_project", YouTubeProjectRow, sql`select * from mdame.remove_youtube_project(${name}::text)`);
}

/** Re-seals a project's secret as a compare-and-swap; `swapped` is false when it changed meanwhile. */
export function resealYouTubeProjectSecret(
  sql: Queryable,
  p: { oauthClientId: string; expected: string; resealed: string },
): Promise<{ row: YouTubeProjectRow; swapped: boolean }> {
  const query = sql`select * from mdame.reseal_youtube_project_secret(${p.oauthClientId}::text, ${p.expected}::text, ${p.resealed}::text)`;
  return swapped("reseal_youtube_project_secret", YouTubeProjectRow, query, (row) => row.client_secret_enc === p.resealed);
}

/** The OAuth client an account's refresh token was granted to (mdame.get_youtube_client): its project's columns, null name and secret when none is registered. */
const YouTubeClientRow = z.object({
  account_id: z.string().uuid(),
  ...YouTubeProjectRow.pick({ oauth_client_id: true, name: true, client_secret_enc: true }).shape,
}).strict();
type YouTubeClientRow = z.infer<typeof YouTubeClientRow>;

export function getYouTubeClient(sql: Queryable, accountId: string): Promise<YouTubeClientRow> {
  return oneRow("get_youtube_client", YouTubeClientRow, sql`select * from mdame.get_youtube_client(${accountId}::uuid)`);
}
