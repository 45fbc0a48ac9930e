/**
 * The Google projects' upload buckets against the day's plan (docs/reference/distribution.md, "Several
 * Google projects"): per project, the uploads its active accounts are planned to make a day (each
 * active dimension's daily_limit, once per account) against its videos.insert calls a day. A
 * project planned over its bucket defers the rest to the next Pacific day, every day; the warning
 * names it, by how much, and what to do. Accounts of a client no project was registered for are
 * refreshed with GOOGLE_OAUTH_CLIENT_ID, which Google refuses unless it is that client.
 */
import type { Sql } from "../../shared/db/client.ts";
import { projectName } from "../../shared/contracts/youtube-project.ts";
import { getYouTubeProjects, type YouTubeProjectPlan } from "../../shared/db/rpc/youtube-projects.ts";
import { type CheckResult, ok, warn } from "./check.ts";

const FAMILY = "database";

/** The doctor's lines for the projects. Pure, for tests. */
export function judgeProjectPlans(projects: YouTubeProjectPlan[], env: { GOOGLE_OAUTH_CLIENT_ID?: string | undefined }): CheckResult[] {
  const used = projects.filter((p) => p.active_accounts > 0);
  const results: CheckResult[] = [];
  const roomy = used.filter((p) => p.upload_calls_per_day > p.planned_uploads_per_day).map((p) => projectName(p, env) ?? p.oauth_client_id);
  for (const p of used) {
    const name = projectName(p, env) ?? p.oauth_client_id;
    if (p.planned_uploads_per_day > p.upload_calls_per_day) {
      const over = p.planned_uploads_per_day - p.upload_calls_per_day;
      const elsewhere = roomy.length > 0 ? `, or move accounts to a project with room (${roomy.join(", ")})` : "";
      results.push(
        warn(
          FAMILY,
          `youtube project ${name}`,
          `${p.planned_uploads_per_day} uploads a day are planned on its ${p.active_accounts} active account(s), its bucket takes ${p.upload_calls_per_day} videos.insert calls a day: ` +
            `${over} over, deferred to the next Pacific day every day`,
          `register another Google project (mdame youtube-project add --name <name> --client-id <id>) and connect some of its channels through it ` +
            `(mdame account connect youtube --dimension <id> --channel <handle> --project <name>)${elsewhere}; or lower those dimensions' daily_limit`,
        ),
      );
    }
    if (p.name === null && name === p.oauth_client_id) {
      results.push(
        warn(
          FAMILY,
          `youtube project ${name}`,
          `${p.active_accounts} active account(s) were connected through OAuth client ${p.oauth_client_id}, which no project registers: their tokens are refreshed with GOOGLE_OAUTH_CLIENT_ID, which Google refuses unless it is that client`,
          `register it: mdame youtube-project add --name <name> --client-id ${p.oauth_client_id} (secret on stdin)`,
        ),
      );
    }
  }
  if (results.length === 0) {
    const summary = used.map((p) => `${projectName(p, env) ?? p.oauth_client_id} ${p.planned_uploads_per_day}/${p.upload_calls_per_day}`).join(", ");
    results.push(
      ok(FAMILY, "youtube projects", used.length === 0 ? "no active YouTube account yet" : `planned uploads a day fit every project's bucket (${summary})`),
    );
  }
  return results;
}

export async function projectChecks(sql: Sql, env: { GOOGLE_OAUTH_CLIENT_ID?: string | undefined }): Promise<CheckResult[]> {
  return judgeProjectPlans(await getYouTubeProjects(sql), env);
}
