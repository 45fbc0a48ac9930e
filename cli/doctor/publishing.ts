/**
 * Publishing checks (docs/reference/distribution.md): accounts Google refused the grant of, each with the
 * exact command that reconnects it, and uploads YouTube locked private although the engine asked
 * for public, which happens to every upload of an API project YouTube has not audited; and active
 * YouTube accounts whose grant lacks yt-analytics.readonly, whose videos' analytics cannot be read.
 */
import type { Sql } from "../../shared/db/client.ts";
import { getAccounts, listLockedPublications } from "../../shared/db/rpc/accounts.ts";
import { reconnectCommand } from "../commands/account.ts";
import { ANALYTICS_SCOPE } from "../../shared/providers/youtube/analytics.ts";
import { type CheckResult, fail, ok, warn } from "./check.ts";

const FAMILY = "database";

/** Where a project asks YouTube for the audit that lets its uploads be public. */
const YOUTUBE_AUDIT_FORM = "https://support.google.com/youtube/contact/yt_api_form";

export async function publishingChecks(sql: Sql): Promise<CheckResult[]> {
  const accounts = await getAccounts(sql);
  const refused = accounts.filter((a) => a.active && a.health_state === "needs_reconnect");
  const results: CheckResult[] = refused.map((a) =>
    fail(
      FAMILY,
      `account ${a.channel_handle}`,
      `needs reconnecting since ${a.health_since?.toISOString() ?? "?"}: ${a.health_reason ?? "Google refused its grant"}; ` +
        "its publications wait (deferred) until then",
      `${reconnectCommand(a)} (a Testing-mode OAuth app's refresh tokens expire after 7 days: publish the app, README "Run it for your channel")`,
    )
  );
  if (refused.length === 0) results.push(ok(FAMILY, "account grants", "no account needs reconnecting"));
  for (const a of accounts.filter((a) => a.active && a.platform === "youtube" && !a.granted_scopes?.includes(ANALYTICS_SCOPE))) {
    results.push(
      warn(
        FAMILY,
        `analytics scope ${a.channel_handle}`,
        a.granted_scopes === null
          ? "the account was connected before mdame recorded the scopes of a grant: its videos' YouTube Analytics may not be readable"
          : `its grant (${a.granted_scopes.join(" ")}) lacks ${ANALYTICS_SCOPE}: its videos' YouTube Analytics cannot be read`,
        `${reconnectCommand(a)} and allow "View YouTube Analytics reports for your YouTube content"`,
      ),
    );
  }

  const locked = await listLockedPublications(sql, 5);
  if (locked.length === 0) {
    results.push(ok(FAMILY, "upload privacy", "no upload was locked private by YouTube"));
  } else {
    const examples = locked.map((p) => `${p.external_id ?? p.publication_id} on ${p.channel_handle} (${p.privacy_status})`).join(", ");
    results.push(
      warn(
        FAMILY,
        "upload privacy",
        `YouTube locked uploads private although public was asked: ${examples}. The API project (OAuth client) has not passed YouTube's audit`,
        `request the audit of the Google Cloud project: ${YOUTUBE_AUDIT_FORM}; until it passes, every upload through it stays private`,
      ),
    );
  }
  return results;
}
