/**
 * Publishing checks (docs/distribution.md): accounts Google refused the grant of, each with the
 * exact command that reconnects it, and uploads YouTube locked private although the engine asked
 * for public, which happens to every upload of an API project YouTube has not audited.
 */
import type { Sql } from "../../shared/db/client.ts";
import { getAccounts, listLockedPublications } from "../../shared/db/rpc/accounts.ts";
import { reconnectCommand } from "../commands/account.ts";
import { type CheckResult, fail, ok, warn } from "./check.ts";

const FAMILY = "database";

/** Where a project asks YouTube for the audit that lets its uploads be public. */
export const YOUTUBE_AUDIT_FORM = "https://support.google.com/youtube/contact/yt_api_form";

export async function publishingChecks(sql: Sql): Promise<CheckResult[]> {
  const refused = (await getAccounts(sql)).filter((a) => a.active && a.health_state === "needs_reconnect");
  const results: CheckResult[] = refused.map((a) =>
    fail(FAMILY, `account ${a.channel_handle}`,
      `needs reconnecting since ${a.health_since?.toISOString() ?? "?"}: ${a.health_reason ?? "Google refused its grant"}; ` +
        "its publications wait (deferred) until then",
      `${reconnectCommand(a)} (a Testing-mode OAuth app's refresh tokens expire after 7 days: publish the app, README "Run it for your channel")`)
  );
  if (refused.length === 0) results.push(ok(FAMILY, "account grants", "no account needs reconnecting"));

  const locked = await listLockedPublications(sql, 5);
  if (locked.length === 0) {
    results.push(ok(FAMILY, "upload privacy", "no upload was locked private by YouTube"));
  } else {
    const examples = locked.map((p) => `${p.external_id ?? p.publication_id} on ${p.channel_handle} (${p.privacy_status})`).join(", ");
    results.push(warn(FAMILY, "upload privacy",
      `YouTube locked uploads private although public was asked: ${examples}. The API project (OAuth client) has not passed YouTube's audit`,
      `request the audit of the Google Cloud project: ${YOUTUBE_AUDIT_FORM}; until it passes, every upload through it stays private`));
  }
  return results;
}
