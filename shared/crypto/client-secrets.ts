/**
 * A Google project's OAuth client secret at rest: sealed like account credentials
 * (shared/crypto/credentials.ts, the same key ring and format), bound to the project's client id
 * under a prefix of its own, so neither an account's credentials nor another project's secret
 * opens in its place. Opened in memory only, by the functions, when a token is refreshed.
 */
import { type CredentialKeyRing, ringKeys } from "./credential-keys.ts";
import { isSealedWithCurrentKey, openSealedText, sealText } from "./credentials.ts";

const BINDING = "mdame-youtube-project:";

/** The sealed secret cannot be opened: its key left the ring, or the value was altered. */
export class ClientSecretUnreadableError extends Error {
  constructor(readonly oauthClientId: string, readonly kid: string | null, reason: "missing" | "tampered", ring: CredentialKeyRing) {
    const held = ringKeys(ring).map((key) => key.kid).join(", ");
    super(
      reason === "missing"
        ? `the client secret of Google project ${oauthClientId} is sealed with key ${
          kid ?? "(v1, none named)"
        }, which is not in the key ring (${held}): put that key back in CREDENTIALS_KEYS_PREVIOUS and run \`mdame credentials rotate\`, or register the project again`
        : `the client secret of Google project ${oauthClientId} does not open with its key ${kid}: it was altered; register the project again`,
    );
    this.name = "ClientSecretUnreadableError";
  }
}

export function sealClientSecret(ring: CredentialKeyRing, secret: string, oauthClientId: string): Promise<string> {
  return sealText(ring, secret, BINDING + oauthClientId);
}

export async function openClientSecret(ring: CredentialKeyRing, sealed: string, oauthClientId: string): Promise<string> {
  const opened = await openSealedText(ring, sealed, BINDING + oauthClientId);
  if ("missing" in opened) throw new ClientSecretUnreadableError(oauthClientId, opened.missing, "missing", ring);
  if ("tampered" in opened) throw new ClientSecretUnreadableError(oauthClientId, opened.tampered, "tampered", ring);
  return opened.text;
}

/** The secret sealed with the ring's current key, or null when it is already (rotation leaves it alone). */
export async function resealClientSecret(ring: CredentialKeyRing, sealed: string, oauthClientId: string): Promise<string | null> {
  if (isSealedWithCurrentKey(ring, sealed)) return null;
  return sealClientSecret(ring, await openClientSecret(ring, sealed, oauthClientId), oauthClientId);
}
