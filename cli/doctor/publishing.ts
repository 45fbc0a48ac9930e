/**
 * Publishing checks (docs/reference/distribution.md): accounts Google refused the grant of, each with the
 * exact command that reconnects it; uploads a platform made private although the engine asked for
 * public, per platform: on YouTube (since 2 Nov 2026 it no longer locks an unverified API project's
 * uploads) the channel's upload default or YouTube's own decision about the video or channel, on
 * TikTok every post of an app TikTok has not audited; and active YouTube accounts whose grant lacks
 * yt-analytics.readonly, whose videos' analytics cannot be read.
 */
import type { Sql } from "../../shared/db/client.ts";
import { getAccounts, listLockedPublications } from "../../shared/db/rpc/accounts.ts";
import { reconnectCommand } from "../commands/account.ts";
import { ANALYTICS_SCOPE } from "../../shared/providers/youtube/analytics.ts";
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { Platform } from "../../shared/contracts/account.ts";

const FAMILY = "database";

/** What each platform's private uploads mean, and what to do about them. */
const LOCKED_BY: Record<Platform, { why: string; fix: string }> = {
  youtube: {
    why: "YouTube no longer keeps an unverified API project's uploads private (since 2 Nov 2026): the channel's own upload default " +
      "or YouTube's decision about the video or the channel did",
    fix: "open each video in YouTube Studio (Content): a restriction or a policy notice says why; check the channel's " +
      "Settings > Upload defaults > Visibility",
  },
  tiktok: {
    why: "TikTok posts every video of an app it has not audited as SELF_ONLY (only the creator sees it)",
    fix: "submit the TikTok app for the Content Posting API audit (developers.tiktok.com, your app > Content Posting API); " +
      "until it passes, every post stays private",
  },
  // Meta's publishing APIs take no privacy: a Page's Reels are public, an Instagram Reel is seen as
  // the account lets it be. The engine records what it asked, so these are never reported locked.
  instagram: {
    why: "an Instagram account that is private shows its Reels to its followers only",
    fix: "make the Instagram professional account public (Instagram app > Settings > Account privacy)",
  },
  facebook: {
    why: "a Facebook Page that is unpublished or restricted shows its Reels to its admins only",
    fix: "publish the Page and lift its country or age restrictions (Page settings > Privacy)",
  },
};
const PLATFORM_NAMES: Record<Platform, string> = { youtube: "YouTube", tiktok: "TikTok", instagram: "Instagram", facebook: "Facebook" };

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

  const locked = await listLockedPublications(sql, 10);
  if (locked.length === 0) results.push(ok(FAMILY, "upload privacy", "no upload was made private against the privacy asked"));
  for (const platform of Object.keys(LOCKED_BY) as Platform[]) {
    const ofPlatform = locked.filter((p) => p.platform === platform).slice(0, 5);
    if (ofPlatform.length === 0) continue;
    const examples = ofPlatform.map((p) => `${p.external_id ?? p.publication_id} on ${p.channel_handle} (${p.privacy_status})`).join(", ");
    results.push(
      warn(
        FAMILY,
        `upload privacy ${platform}`,
        `${PLATFORM_NAMES[platform]} made uploads private although public was asked: ${examples}. ${LOCKED_BY[platform].why}`,
        LOCKED_BY[platform].fix,
      ),
    );
  }
  return results;
}
