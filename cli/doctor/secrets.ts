/**
 * Secret checks: the webhook secret and the credentials key in the form the code that uses them
 * needs, and a service-role key. Values are never printed, only their shape.
 */
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { webhookSecrets } from "../../shared/webhooks/standard-webhooks.ts";
import { type CheckResult, describeError, fail, ok, warn } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "secrets";
/** shared/webhooks/standard-webhooks.ts refuses secrets shorter than this. */
const WEBHOOK_MIN_BYTES = 24;

/** Bytes of a base64 text, or undefined when it is not base64. */
function base64Bytes(text: string): number | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  try {
    return atob(text).length;
  } catch {
    return undefined;
  }
}

function webhookSecret(value: string | undefined): CheckResult {
  const name = "WEBHOOK_SECRET";
  if (!value) return fail(FAMILY, name, "not set", hintFor(name));
  if (!value.startsWith("whsec_")) return fail(FAMILY, name, "does not start with whsec_ (Standard Webhooks form)", hintFor(name));
  const bytes = base64Bytes(value.slice("whsec_".length));
  if (bytes === undefined) return fail(FAMILY, name, "the part after whsec_ is not base64", hintFor(name));
  if (bytes < WEBHOOK_MIN_BYTES) return fail(FAMILY, name, `holds ${bytes} bytes; at least ${WEBHOOK_MIN_BYTES} are needed`, hintFor(name));
  return ok(FAMILY, name, `whsec_ + base64 of ${bytes} bytes`);
}

function credentialsKey(value: string | undefined): CheckResult {
  const name = "CREDENTIALS_KEY";
  if (!value) return fail(FAMILY, name, "not set", hintFor(name));
  const bytes = base64Bytes(value);
  if (bytes === undefined) return fail(FAMILY, name, "is not base64", hintFor(name));
  if (bytes !== 32) return fail(FAMILY, name, `decodes to ${bytes} bytes; AES-256-GCM needs exactly 32`, hintFor(name));
  return ok(FAMILY, name, "base64 of 32 bytes (AES-256-GCM key)");
}

function serviceRoleKey(env: Record<string, string | undefined>): CheckResult {
  const name = "SERVICE_ROLE_KEY";
  const value = env.SERVICE_ROLE_KEY;
  if (!value) return fail(FAMILY, name, "not set (nor SUPABASE_SERVICE_ROLE_KEY)", hintFor(name));
  if (value.length < 16) return fail(FAMILY, name, `only ${value.length} characters; a service-role key has at least 16`, hintFor(name));
  if (env.SUPABASE_SERVICE_ROLE_KEY && env.SUPABASE_SERVICE_ROLE_KEY !== value) {
    return warn(
      FAMILY,
      name,
      "SERVICE_ROLE_KEY and SUPABASE_SERVICE_ROLE_KEY differ: the API and Storage will use different keys",
      "set one of them, or the same value in both",
    );
  }
  return ok(FAMILY, name, `set (${value.length} characters)`);
}

const ROTATION = "see docs/guides/rotation.md; remove the variable once the rotation is over";

/**
 * The rotation lists: each is read only beside its current value (`current`), and says what it
 * holds when it parses.
 */
const ROTATION_LISTS: { name: string; current: string; read: (values: { current: string; list: string }, name: string) => CheckResult }[] = [
  {
    name: "CREDENTIALS_KEYS_PREVIOUS",
    current: "CREDENTIALS_KEY",
    read: ({ current, list }, name) => {
      const ring = credentialKeyRing({ CREDENTIALS_KEY: current, CREDENTIALS_KEYS_PREVIOUS: list });
      const previous = ring.previous.map((k) => k.kid).join(", ");
      return ok(FAMILY, name, `${ring.previous.length} previous key(s) (${previous}) beside the current one (${ring.current.kid})`);
    },
  },
  {
    name: "WEBHOOK_SECRETS_PREVIOUS",
    current: "WEBHOOK_SECRET",
    read: ({ current, list }, name) => {
      const previous = webhookSecrets({ WEBHOOK_SECRET: current, WEBHOOK_SECRETS_PREVIOUS: list }).length - 1;
      return warn(
        FAMILY,
        name,
        `the callback also accepts ${previous} previous secret(s): a rotation is under way`,
        "once every worker signs with WEBHOOK_SECRET, remove WEBHOOK_SECRETS_PREVIOUS from the functions' secrets (docs/guides/rotation.md)",
      );
    },
  },
];

/** The lists of rotated keys and secrets, when set: each entry usable and none given twice, or a failure when it does not parse. */
function rotationLists(env: Record<string, string | undefined>): CheckResult[] {
  return ROTATION_LISTS.filter((list) => env[list.name] && env[list.current]).map((list) => {
    try {
      return list.read({ current: env[list.current]!, list: env[list.name]! }, list.name);
    } catch (error) {
      return fail(FAMILY, list.name, describeError(error), ROTATION);
    }
  });
}

export function checkSecrets(config: DoctorConfig): CheckResult[] {
  return [webhookSecret(config.env.WEBHOOK_SECRET), credentialsKey(config.env.CREDENTIALS_KEY), serviceRoleKey(config.env), ...rotationLists(config.env)];
}
