/**
 * Value scrubbing for log lines: pino's `redact` blanks fields by key path only, so a token inside a
 * message, an error's message or stack, a URL or a form body would still be written. Every string a
 * line carries goes through `scrubText`, which replaces what looks like a credential by `[redacted]`
 * and keeps everything else as it was.
 */

export const REDACTED = "[redacted]";

/** Query-string and form-body parameters whose values are credentials. */
const SECRET_PARAMS = [
  "client_secret",
  "access_token",
  "refresh_token",
  "id_token",
  "code",
  "code_verifier",
  "token",
  "api_key",
  "apikey",
  "key",
  "password",
  "secret",
  "assertion",
  "client_assertion",
];

/**
 * Each pattern with what replaces it. Token characters never include a backslash, a quote or
 * whitespace, so a match stops at the end of the token also inside JSON-escaped text.
 */
const PATTERNS: readonly (readonly [RegExp, string])[] = [
  // An Authorization header value, wherever it was copied to.
  // A digit or punctuation is required so that prose ("Basic authentication") stays.
  [/\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*[0-9+/=])[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // Telegram Bot API URLs: https://api.telegram.org/bot<token>/method.
  [/\/bot\d{5,}:[A-Za-z0-9_-]{20,}/g, `/bot${REDACTED}`],
  // A Telegram bot token: the bot's numeric id, a colon and 35 characters.
  [/(?<![A-Za-z0-9_-])\d{5,}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, REDACTED],
  // Google OAuth access tokens and refresh tokens.
  [/\bya29\.[A-Za-z0-9._-]+/g, REDACTED],
  [/(?<![A-Za-z0-9:/._-])1\/\/[A-Za-z0-9._-]{10,}/g, REDACTED],
  // The OAuth emulator's refresh tokens (`emulator-refresh-<channel>`).
  [/\bemulator-refresh-[A-Za-z0-9._-]+/g, REDACTED],
  // JWTs (a Supabase service role key among them): three base64url segments, the first `{"`.
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // Supabase secret API keys, Standard Webhooks secrets, Google API keys, OpenAI-style keys.
  [/\bsb_secret_[A-Za-z0-9_-]+/g, REDACTED],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, REDACTED],
  [/\bAIza[A-Za-z0-9_-]{30,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{20,}/g, REDACTED],
  // `name=value` in a query string or a form body (after ?, &, ;, # or at the start).
  [new RegExp(`(^|[?&;#])(${SECRET_PARAMS.join("|")})=[^&\\s"'\\\\#<>]+`, "gi"), `$1$2=${REDACTED}`],
  // The same names as JSON or header-like pairs inside a text: "refresh_token":"...", client_secret: ...
  [
    new RegExp(
      `((?<![A-Za-z0-9_])["']?(?:${SECRET_PARAMS.filter((p) => p !== "code" && p !== "key").join("|")})["']?\\s*[:=]\\s*["']?)[^\\s"'\\\\,&}]{6,}`,
      "gi",
    ),
    `$1${REDACTED}`,
  ],
];

/** Secret values taken from the environment, longest first so one never leaves part of another. */
let knownSecrets: string[] = [];

/**
 * Variables whose values are credentials: names ending in KEY, SECRET, TOKEN or PASSWORD (plural
 * and `_PREVIOUS` rings included). A client id or TikTok client key identifies an app, it is public.
 */
const SECRET_NAME = /(KEY|KEYS|SECRET|SECRETS|TOKEN|TOKENS|PASSWORD)(_PREVIOUS)?$/;
const PUBLIC_NAME = /(CLIENT_ID|CLIENT_KEY)$/;
const MIN_SECRET_LENGTH = 8;

/** The credential values in an environment (rings split on commas and spaces). */
export function secretValuesOf(env: Record<string, string | undefined>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || !SECRET_NAME.test(name) || PUBLIC_NAME.test(name)) continue;
    for (const part of value.split(/[\s,]+/)) {
      if (part.length >= MIN_SECRET_LENGTH) values.push(part);
    }
  }
  return values;
}

/** Adds values every later `scrubText` replaces wherever they appear. */
export function registerSecrets(values: Iterable<string>): void {
  const all = new Set(knownSecrets);
  for (const value of values) if (value.length >= MIN_SECRET_LENGTH) all.add(value);
  knownSecrets = [...all].sort((a, b) => b.length - a.length);
}

/** Forgets the registered values (tests). */
export function clearRegisteredSecrets(): void {
  knownSecrets = [];
}

/** The text with every credential it holds replaced by `[redacted]`. */
export function scrubText(text: string): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const MAX_DEPTH = 8;

/**
 * A copy of a log object with every string scrubbed; errors become pino's serialized form (type,
 * message, stack, cause chain) scrubbed likewise. Values that hold no string are returned as is.
 */
export function scrubValue(value: unknown, serializeError: (error: Error) => unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Error) return scrubValue(serializeError(value), serializeError, depth + 1, seen);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, serializeError, depth + 1, seen));
  if (ArrayBuffer.isView(value) || value instanceof Date || value instanceof URL) {
    return value instanceof URL ? scrubText(value.href) : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, serializeError, depth + 1, seen);
  return out;
}
