/**
 * An access token for a connected TikTok account, from its sealed refresh token. TikTok may answer
 * with a new refresh token (it rotates them): the new one is sealed over the stored credentials, by
 * compare-and-swap, so a reconnect that came meanwhile wins. The publish stage and `mdame doctor`
 * both take the token this way, so a check never leaves the account with a spent refresh token.
 */
import type { CredentialKeyRing } from "../../crypto/credential-keys.ts";
import { encryptCredentials } from "../../crypto/credentials.ts";
import type { Queryable } from "../../db/client.ts";
import { resealAccountCredentials } from "../../db/rpc/accounts.ts";
import { refreshAccessToken } from "./oauth.ts";

export interface TikTokApp {
  clientKey: string;
  clientSecret: string;
  apiBaseUrl?: string;
}

export async function tiktokAccessToken(
  sql: Queryable,
  credentialKeys: CredentialKeyRing,
  app: TikTokApp,
  account: { id: string; credentialsEnc: string | null; refreshToken: string },
): Promise<string> {
  const tokens = await refreshAccessToken({ ...app, refreshToken: account.refreshToken });
  if (tokens.refreshToken && tokens.refreshToken !== account.refreshToken && account.credentialsEnc) {
    const resealed = await encryptCredentials(credentialKeys, { refresh_token: tokens.refreshToken }, account.id);
    await resealAccountCredentials(sql, { id: account.id, expected: account.credentialsEnc, resealed });
  }
  return tokens.accessToken;
}
