/**
 * The tokens a connected Instagram or Facebook account publishes with, from its sealed long-lived
 * user token (Facebook Login for Business). Meta has no refresh token: a long-lived user token
 * lasts about 60 days, and one still valid is exchanged (fb_exchange_token) for a fresh long-lived
 * token before each post; the new one is sealed over the stored credentials by compare-and-swap,
 * so a reconnect made meanwhile wins and an account that publishes keeps a token that does not run
 * out. An expired or revoked token (Graph code 190) cannot be exchanged: the account needs a new
 * connect (refusals.ts says so).
 *
 * Instagram's content publishing takes the user token; Facebook's Reels Publishing API a Page token
 * of the Page, read with the fresh user token (`/{page-id}?fields=access_token`).
 */
import { z } from "zod";
import type { CredentialKeyRing } from "../../crypto/credential-keys.ts";
import { encryptCredentials } from "../../crypto/credentials.ts";
import type { Queryable } from "../../db/client.ts";
import { resealAccountCredentials } from "../../db/rpc/accounts.ts";
import { graphCall, type GraphHost } from "./graph.ts";
import { longLivedToken, type MetaApp } from "./login.ts";

/** A fresh long-lived user token for the account, the stored one replaced when Meta gave a new one. */
export async function metaUserToken(
  sql: Queryable,
  credentialKeys: CredentialKeyRing,
  input: { host: GraphHost; app: MetaApp },
  account: { id: string; credentialsEnc: string | null; userToken: string },
): Promise<string> {
  const fresh = await longLivedToken({ host: input.host, app: input.app, userToken: account.userToken });
  if (fresh.accessToken !== account.userToken && account.credentialsEnc) {
    const resealed = await encryptCredentials(credentialKeys, { refresh_token: fresh.accessToken }, account.id);
    await resealAccountCredentials(sql, { id: account.id, expected: account.credentialsEnc, resealed });
  }
  return fresh.accessToken;
}

const PageToken = z.looseObject({ id: z.string(), access_token: z.string().min(1).max(4096) });

/** The Page token of `pageId`, read with the user's token (the user must manage the Page). */
export async function pageAccessToken(input: { host: GraphHost; userToken: string; pageId: string }): Promise<string> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: input.pageId,
    params: { fields: "id,access_token" },
    token: input.userToken,
    answer: PageToken,
    what: "read the Page token",
  });
  return answer.access_token;
}
