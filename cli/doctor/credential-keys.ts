/**
 * Which keys the stored credentials need, asked of the functions (they hold the key ring;
 * `GET /pipeline/credentials/keys`): accounts sealed with a key not in the ring fail, accounts still
 * on a previous key (or in the v1 format) and previous keys nothing needs any more are warnings.
 * This configuration's CREDENTIALS_KEY, when set, must be the functions' current key.
 */
import { CredentialKeysCensus } from "../../shared/contracts/credentials.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { type CheckResult, describeError, fail, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";

const FAMILY = "database";
const NAME = "credential keys";
const ROTATE = "run `mdame credentials rotate` (docs/guides/rotation.md)";

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** The doctor's line for a census. Pure, for tests. */
export function judgeCensus(census: CredentialKeysCensus, localKid: string | null): CheckResult {
  const { ring } = census;
  const count = (standing: string) => census.by_key.filter((g) => g.standing === standing).reduce((n, g) => n + g.accounts, 0);
  const keys = `ring: current ${ring.current}${ring.previous.length > 0 ? `, previous ${ring.previous.join(", ")}` : ""}`;
  const missing = census.by_key.filter((g) => g.standing === "missing" || g.standing === "unreadable");
  if (missing.length > 0) {
    const what = missing.map((g) => `${plural(g.accounts, "account")} ${g.standing === "missing" ? `sealed with key ${g.kid}` : "in no known format"}`).join(
      ", ",
    );
    return fail(
      FAMILY,
      NAME,
      `${what}, not in the functions' key ring (${keys}): their videos cannot be published`,
      "put the key that sealed them back in CREDENTIALS_KEYS_PREVIOUS and run `mdame credentials rotate`, or reconnect those accounts (mdame account connect youtube --dimension <id>)",
    );
  }
  if (localKid !== null && localKid !== ring.current) {
    return warn(
      FAMILY,
      NAME,
      `this configuration's CREDENTIALS_KEY (kid ${localKid}) is not the functions' current key (${ring.current})`,
      "give the functions and this configuration the same CREDENTIALS_KEY (docs/guides/rotation.md)",
    );
  }
  const behind = count("previous") + count("v1");
  if (behind > 0) {
    const parts = [
      ...census.by_key.filter((g) => g.standing === "previous").map((g) => `${plural(g.accounts, "account")} on previous key ${g.kid}`),
      ...(count("v1") > 0 ? [`${plural(count("v1"), "account")} in the v1 format (no key id)`] : []),
    ];
    return warn(FAMILY, NAME, `${parts.join(", ")}; ${count("current")}/${census.accounts} on the current key ${ring.current}`, ROTATE);
  }
  if (census.unused_previous.length > 0) {
    return warn(
      FAMILY,
      NAME,
      `all ${plural(census.accounts, "account")} on the current key ${ring.current}; previous key(s) ${census.unused_previous.join(", ")} seal nothing`,
      "remove them from CREDENTIALS_KEYS_PREVIOUS in the functions' secrets (docs/guides/rotation.md)",
    );
  }
  return ok(
    FAMILY,
    NAME,
    `${census.accounts === 0 ? "no account holds credentials" : `all ${plural(census.accounts, "account")} sealed with the current key`} (${keys})`,
  );
}

export async function checkCredentialKeys(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  if (!env.FUNCTIONS_URL || !env.SERVICE_ROLE_KEY) {
    return warn(FAMILY, NAME, "cannot ask the functions for their key ring without FUNCTIONS_URL and SERVICE_ROLE_KEY", "see the functions/pipeline line");
  }
  let localKid: string | null = null;
  try {
    if (env.CREDENTIALS_KEY) localKid = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY }).current.kid;
  } catch {
    // The secrets line names what is wrong with it.
  }
  const base = env.FUNCTIONS_URL.replace(/\/+$/, "");
  try {
    return await withTimeout(timeoutMs, async (signal) => {
      const response = await fetch(`${base}/pipeline/credentials/keys`, { headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` }, signal });
      const body = await response.json().catch(() => null);
      if (!response.ok) return warn(FAMILY, NAME, `${base}/pipeline/credentials/keys answered HTTP ${response.status}`, "see the functions/pipeline line");
      const census = CredentialKeysCensus.safeParse(body);
      if (!census.success) {
        return warn(FAMILY, NAME, `${base}/pipeline/credentials/keys answered something else than a key census`, "deploy the current functions");
      }
      return judgeCensus(census.data, localKid);
    });
  } catch (error) {
    return warn(FAMILY, NAME, `cannot ask the functions for their key ring: ${describeError(error)}`, "see the functions/pipeline line");
  }
}
