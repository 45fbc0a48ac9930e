/**
 * Connecting an Instagram professional account or a Facebook Page to a dimension: Facebook Login
 * for Business as a desktop app drives it (the login dialog, a loopback redirect with the same
 * state check and timeout as the other platforms', loopback-redirect.ts), spoken by
 * shared/providers/meta/login.ts: the code exchanged for a short-lived user token, that one for a
 * long-lived one, the permissions granted checked, and the Page chosen among `/me/accounts` (with
 * its Instagram account for Instagram). The long-lived user token goes once to the operator API,
 * which seals it; the account records the IG user id or the Page id. Nothing here prints or logs a
 * token.
 *
 * The handle is read from Meta: Instagram's `@username`; a Page's name, its spaces as dashes (an
 * account's handle is one word).
 */
import { randomBytes } from "node:crypto";
import type { ConnectedAccount } from "../shared/contracts/account.ts";
import { OPS_REQUIRED_SCOPES } from "../shared/contracts/ops.ts";
import { ProviderError } from "../shared/providers/errors.ts";
import type { GraphHost } from "../shared/providers/meta/graph.ts";
import {
  exchangeCode,
  grantedPermissions,
  instagramUsername,
  loginDialogUrl,
  longLivedToken,
  type ManagedPage,
  managedPages,
  META_LOGIN_SCOPES,
} from "../shared/providers/meta/login.ts";
import type { ApiClient } from "./api-client.ts";
import { CliError, EXIT } from "./errors.ts";
import { listenForRedirect, showConsent } from "./loopback-redirect.ts";
import type { MetaOAuthConfig } from "./oauth-config.ts";
import type { Screen } from "./output.ts";

export type MetaPlatform = "instagram" | "facebook";

interface ConnectMetaOptions {
  platform: MetaPlatform;
  dimension: string;
  /** The Page to connect (its name or id; for Instagram also the account's @username); null: the only one the user manages. */
  page: string | null;
  /** Passed on as `login_hint`: Facebook ignores it, the emulator signs in as that user. */
  loginHint: string | null;
  timeoutMs: number;
  openBrowser: boolean;
}

/** A Page's name as an account handle: one word, its runs of spaces as dashes, at most 100 characters. Pure, for tests. */
export function pageHandle(name: string): string {
  return name.trim().replace(/[\s<>"]+/g, "-").slice(0, 100) || "page";
}

/**
 * The Page `wanted` names among the user's (by id, by name ignoring case, or for Instagram by the
 * linked account's @username, given as `usernames`), or the only one when `wanted` is null. Pure.
 */
export function choosePage(pages: ManagedPage[], wanted: string | null, usernames: Map<string, string> = new Map()): ManagedPage {
  const names = pages.map((p) => `${p.name} (${p.id})`).join(", ");
  if (pages.length === 0) {
    throw new CliError("the signed-in user manages no Facebook Page (or did not let mdame see them: allow pages_show_list); nothing connected", EXIT.failure);
  }
  if (wanted === null) {
    if (pages.length === 1) return pages[0]!;
    throw new CliError(`the signed-in user manages several Pages (${names}): name one with --page <name or id>; nothing connected`, EXIT.usage);
  }
  const key = wanted.trim().toLowerCase();
  const found = pages.find((p) => p.id === key || p.name.toLowerCase() === key || usernames.get(p.id)?.toLowerCase() === key.replace(/^@/, ""));
  if (!found) throw new CliError(`no Page ${JSON.stringify(wanted)} among the signed-in user's (${names}); nothing connected`, EXIT.notFound);
  return found;
}

function metaFailure(what: string, error: unknown): CliError {
  if (error instanceof ProviderError) return new CliError(`${what} failed: ${error.message}`, error.status ? EXIT.failure : EXIT.unreachable);
  if (error instanceof CliError) return error;
  return new CliError(`${what} failed: ${(error as Error)?.message ?? String(error)}`, EXIT.unreachable);
}

/**
 * Runs the whole connect: the login dialog's address on `err` (and the browser), the redirect,
 * the token exchanges, the Page, then POST /pipeline/accounts. Nothing is stored unless every step
 * succeeded.
 */
export async function connectMeta(options: ConnectMetaOptions, config: MetaOAuthConfig, api: ApiClient, err: Screen): Promise<ConnectedAccount> {
  // Fails before the consent when the dimension does not exist (404).
  await api.showDimension(options.dimension);
  const host: GraphHost = { graphBaseUrl: config.graphBaseUrl, version: config.version };
  const app = { appId: config.appId, appSecret: config.appSecret };

  const state = randomBytes(32).toString("base64url");
  const redirect = await listenForRedirect(state, options.timeoutMs);
  try {
    const dialog = new URL(
      loginDialogUrl({
        authBaseUrl: config.authBaseUrl,
        version: config.version,
        appId: config.appId,
        redirectUri: redirect.redirectUri,
        state,
        scopes: META_LOGIN_SCOPES,
      }),
    );
    if (options.loginHint) dialog.searchParams.set("login_hint", options.loginHint);
    const what = options.platform === "instagram" ? "an Instagram professional account" : "a Facebook Page";
    showConsent(err, `To let mdame publish Reels to ${what} for dimension ${options.dimension}`, dialog.toString(), redirect.redirectUri, options);

    const code = await redirect.code;
    const signal = AbortSignal.timeout(30_000);
    let userToken: string;
    let granted: string[];
    let pages: ManagedPage[];
    try {
      const short = await exchangeCode({ host, app, code, redirectUri: redirect.redirectUri, signal });
      userToken = (await longLivedToken({ host, app, userToken: short.accessToken, signal })).accessToken;
      granted = await grantedPermissions({ host, userToken, signal });
      pages = await managedPages({ host, userToken, signal });
    } catch (error) {
      throw metaFailure("signing in with Facebook", error);
    }
    const missing = OPS_REQUIRED_SCOPES[options.platform].filter((scope) => !granted.includes(scope));
    if (missing.length > 0) {
      throw new CliError(
        `the sign-in did not grant ${missing.join(", ")}, which publishing to ${options.platform} needs: connect again and allow it; nothing connected`,
        EXIT.failure,
      );
    }
    const candidates = options.platform === "instagram" ? pages.filter((p) => p.instagramAccountId !== null) : pages;
    if (options.platform === "instagram" && candidates.length === 0 && pages.length > 0) {
      throw new CliError(
        "none of the signed-in user's Pages has an Instagram professional account linked (Instagram app > Settings > Account type: Business or Creator, linked to the Page); nothing connected",
        EXIT.failure,
      );
    }
    let handle: string;
    let platformId: string;
    if (options.platform === "instagram") {
      const usernames = new Map<string, string>();
      try {
        for (const p of candidates) usernames.set(p.id, await instagramUsername({ host, userToken, igUserId: p.instagramAccountId!, signal }));
      } catch (error) {
        throw metaFailure("reading the Instagram account", error);
      }
      const page = choosePage(candidates, options.page, usernames);
      handle = `@${usernames.get(page.id)}`;
      platformId = page.instagramAccountId!;
    } else {
      const page = choosePage(candidates, options.page);
      handle = pageHandle(page.name);
      platformId = page.id;
    }
    return await api.connectAccount({
      dimension_id: options.dimension,
      platform: options.platform,
      channel_handle: handle,
      channel_id: platformId,
      // Meta has no refresh token: the long-lived user token, which the engine exchanges for a fresh one before each post.
      refresh_token: userToken,
      oauth_client_id: config.appId,
      granted_scopes: granted,
    });
  } finally {
    await redirect.close();
  }
}
