/**
 * Which OAuth client refreshes an account's Google access token: the one its refresh token was
 * granted to, since Google refuses a refresh token presented with another client's credentials
 * (docs/reference/distribution.md, "Several Google projects"). A registered project's secret is opened from
 * the key ring; the project default, and a client met only through connects, use the environment's
 * GOOGLE_OAUTH_CLIENT_ID and _SECRET, as every account did before projects were registered.
 */
import { openClientSecret } from "../../crypto/client-secrets.ts";
import type { CredentialKeyRing } from "../../crypto/credential-keys.ts";
import type { Queryable } from "../../db/client.ts";
import { getYouTubeClient } from "../../db/rpc/youtube-projects.ts";

interface GoogleOAuthClient {
  clientId: string;
  clientSecret: string;
}

/** The environment's client: the project default (the engine requires it; `mdame doctor` may lack it). */
interface EnvironmentClient {
  GOOGLE_OAUTH_CLIENT_ID?: string | undefined;
  GOOGLE_OAUTH_CLIENT_SECRET?: string | undefined;
}

/**
 * The client of the account's Google project, its secret opened in memory (ClientSecretUnreadableError
 * when the ring lacks its key); null when the environment's client serves it and is not configured.
 */
export async function youtubeClientFor(sql: Queryable, ring: CredentialKeyRing, env: EnvironmentClient, accountId: string): Promise<GoogleOAuthClient | null> {
  const row = await getYouTubeClient(sql, accountId);
  if (row.client_secret_enc !== null) {
    return { clientId: row.oauth_client_id, clientSecret: await openClientSecret(ring, row.client_secret_enc, row.oauth_client_id) };
  }
  if (!env.GOOGLE_OAUTH_CLIENT_ID || !env.GOOGLE_OAUTH_CLIENT_SECRET) return null;
  return { clientId: env.GOOGLE_OAUTH_CLIENT_ID, clientSecret: env.GOOGLE_OAUTH_CLIENT_SECRET };
}
