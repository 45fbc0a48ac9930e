/**
 * Facebook Login for Business, the manual flow a desktop or CLI app drives with browser redirects,
 * and the token calls around it (Facebook Login, "Manually Build a Login Flow" and "Long-Lived
 * Access Tokens"). Runs in Deno and Bun.
 *
 * 1. loginDialogUrl: `<www.facebook.com>/<version>/dialog/oauth` with client_id (the app id),
 *    redirect_uri, state, response_type=code and the permissions as a comma-separated `scope`.
 * 2. exchangeCode: `<graph>/<version>/oauth/access_token` with client_id, client_secret,
 *    redirect_uri and the code: a short-lived user token (hours).
 * 3. longLivedToken: the same endpoint with grant_type=fb_exchange_token: a long-lived user token
 *    (about 60 days). Meta issues no refresh token: a long-lived token still valid is exchanged
 *    again for a fresh one (shared/providers/meta/tokens.ts); an expired or revoked one cannot be,
 *    and the user signs in again.
 * 4. managedPages: `/me/accounts` with the Page token of each Page the user manages and its
 *    Instagram professional account (`instagram_business_account`). A Page token read with a
 *    long-lived user token does not expire.
 *
 * The app secret goes in a POST body, never in a URL; no token or secret is put in a message.
 */
import { z } from "zod";
import { graphCall, type GraphHost } from "./graph.ts";

/**
 * The permissions a connect asks for, one Facebook Login for both platforms of a Page: Instagram
 * content publishing (instagram_basic, instagram_content_publish, with pages_show_list and
 * pages_read_engagement to reach the Page's Instagram account), the Reels Publishing API
 * (pages_show_list, pages_read_engagement, pages_manage_posts), and the insights the closed loop
 * reads (instagram_manage_insights for Reels' insights, read_insights for a Page's video insights).
 */
export const META_LOGIN_SCOPES = [
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_insights",
  "pages_show_list",
  "pages_read_engagement",
  "pages_manage_posts",
  "read_insights",
] as const;

/** The app: its id and secret (META_APP_ID, META_APP_SECRET). */
export interface MetaApp {
  appId: string;
  appSecret: string;
}

/** The consent page's address. */
export function loginDialogUrl(
  input: { authBaseUrl: string; version: string; appId: string; redirectUri: string; state: string; scopes: readonly string[] },
): string {
  const url = new URL(`/${input.version}/dialog/oauth`, input.authBaseUrl);
  url.searchParams.set("client_id", input.appId);
  url.searchParams.set("redirect_uri", input.redirectUri);
  url.searchParams.set("state", input.state);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", input.scopes.join(","));
  return url.toString();
}

const TokenAnswer = z.looseObject({
  access_token: z.string().min(1).max(4096),
  token_type: z.string().optional(),
  expires_in: z.number().int().nonnegative().optional(),
});

export interface UserToken {
  accessToken: string;
  /** Seconds the token lives, when Meta says. */
  expiresIn: number | null;
}

const userToken = (answer: z.infer<typeof TokenAnswer>): UserToken => ({ accessToken: answer.access_token, expiresIn: answer.expires_in ?? null });

/** The code the dialog redirected with, exchanged for a short-lived user token. */
export async function exchangeCode(input: { host: GraphHost; app: MetaApp; code: string; redirectUri: string; signal?: AbortSignal }): Promise<UserToken> {
  return userToken(
    await graphCall({
      host: input.host,
      method: "POST",
      path: "oauth/access_token",
      params: { client_id: input.app.appId, client_secret: input.app.appSecret, redirect_uri: input.redirectUri, code: input.code },
      answer: TokenAnswer,
      what: "exchange the login code",
      signal: input.signal,
    }),
  );
}

/** A user token (short- or long-lived, still valid) exchanged for a fresh long-lived one. */
export async function longLivedToken(input: { host: GraphHost; app: MetaApp; userToken: string; signal?: AbortSignal }): Promise<UserToken> {
  return userToken(
    await graphCall({
      host: input.host,
      method: "POST",
      path: "oauth/access_token",
      params: { grant_type: "fb_exchange_token", client_id: input.app.appId, client_secret: input.app.appSecret, fb_exchange_token: input.userToken },
      answer: TokenAnswer,
      what: "exchange for a long-lived token",
      signal: input.signal,
    }),
  );
}

const PageList = z.looseObject({
  data: z.array(z.looseObject({
    id: z.string().regex(/^\d{1,30}$/),
    name: z.string(),
    access_token: z.string().min(1).max(4096).optional(),
    instagram_business_account: z.looseObject({ id: z.string().regex(/^\d{1,30}$/) }).optional(),
  })),
});

/** A Page the user manages, with its Page token and its Instagram professional account's id (when linked). */
export interface ManagedPage {
  id: string;
  name: string;
  pageToken: string | null;
  instagramAccountId: string | null;
}

/** The Pages the user manages (`/me/accounts`, first 100). */
export async function managedPages(input: { host: GraphHost; userToken: string; signal?: AbortSignal }): Promise<ManagedPage[]> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: "me/accounts",
    params: { fields: "id,name,access_token,instagram_business_account", limit: 100 },
    token: input.userToken,
    answer: PageList,
    what: "list the user's Pages",
    signal: input.signal,
  });
  return answer.data.map((p) => ({ id: p.id, name: p.name, pageToken: p.access_token ?? null, instagramAccountId: p.instagram_business_account?.id ?? null }));
}

const Permissions = z.looseObject({ data: z.array(z.looseObject({ permission: z.string(), status: z.string() })) });

/** The permissions the user granted the app (`/me/permissions`, those with status granted). */
export async function grantedPermissions(input: { host: GraphHost; userToken: string; signal?: AbortSignal }): Promise<string[]> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: "me/permissions",
    token: input.userToken,
    answer: Permissions,
    what: "read the granted permissions",
    signal: input.signal,
  });
  return answer.data.filter((p) => p.status === "granted").map((p) => p.permission);
}

const IgUser = z.looseObject({ id: z.string(), username: z.string().min(1).max(60) });

/** The Instagram professional account's username. */
export async function instagramUsername(input: { host: GraphHost; userToken: string; igUserId: string; signal?: AbortSignal }): Promise<string> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: input.igUserId,
    params: { fields: "id,username" },
    token: input.userToken,
    answer: IgUser,
    what: "read the Instagram account",
    signal: input.signal,
  });
  return answer.username;
}
