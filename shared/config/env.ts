import process from "node:process";
import { z } from "zod";
import { credentialKeyRing, CredentialKeyRingError } from "../crypto/credential-keys.ts";
import { webhookSecrets, WebhookVerificationError } from "../webhooks/standard-webhooks.ts";

/** Bytes a base64 text decodes to, or -1 when it is not base64. */
function base64Length(text: string): number {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return -1;
  try {
    return atob(text).length;
  } catch {
    return -1;
  }
}

/**
 * Every environment variable the engine reads, in one place. Each process parses the slice it
 * needs at start-up and refuses to start with a clear message otherwise.
 *
 * On Supabase, Edge Functions receive `SUPABASE_URL`, `SUPABASE_DB_URL` and
 * `SUPABASE_SERVICE_ROLE_KEY`; those are read first (see `withSupabaseNames`). The project's own
 * names (`DB_URL`, `SERVICE_ROLE_KEY`, `FUNCTIONS_URL`) only override them.
 */
export const EngineEnv = z.object({
  ENV: z.enum(["dev", "prod"], { message: "ENV must be set to dev or prod" }),
  DB_URL: z.string().url(),
  FUNCTIONS_URL: z.string().url(),
  SERVICE_ROLE_KEY: z.string().min(16),
  // Checked here as the code that uses them checks them, so a bad one stops a process at start-up
  // rather than at its first callback or publish.
  WEBHOOK_SECRET: z.string().refine(
    (v) => v.startsWith("whsec_") && base64Length(v.slice("whsec_".length)) >= 24,
    "WEBHOOK_SECRET must be whsec_ + base64 of at least 24 bytes",
  ),
  CREDENTIALS_KEY: z.string().refine((v) => base64Length(v) === 32, "CREDENTIALS_KEY must be 32 bytes, base64"),
  /**
   * Keys rotated out of CREDENTIALS_KEY, comma-separated: they open what they sealed until
   * `mdame credentials rotate` has re-sealed it with CREDENTIALS_KEY (docs/guides/rotation.md).
   * Checked with CREDENTIALS_KEY in loadEnv (each entry 32 bytes of base64, no key twice).
   */
  CREDENTIALS_KEYS_PREVIOUS: z.string().optional(),
  /**
   * Secrets rotated out of WEBHOOK_SECRET, comma- or space-separated: the callback still accepts
   * deliveries signed with them while workers move to WEBHOOK_SECRET (docs/guides/rotation.md).
   */
  WEBHOOK_SECRETS_PREVIOUS: z.string().optional(),
  /** `supabase`: Supabase Storage (or its emulator) through supabase-js; `local`: a directory. */
  STORAGE_BACKEND: z.enum(["supabase", "local"]).default("supabase"),
  STORAGE_LOCAL_DIR: z.string().min(1).default(".local/storage"),
  /** Base URL of the Supabase project (its Storage API lives under `/storage/v1`). */
  SUPABASE_URL: z.string().url(),
  SUPABASE_SERVICE_ROLE_KEY: z.string().min(16),
  /** One bucket per environment. */
  STORAGE_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,62}$/, "STORAGE_BUCKET must be 2-63 characters: lower-case letters, digits, '.', '_' or '-'"),
  GEMINI_API_KEY: z.string().min(1),
  GEMINI_BASE_URL: z.string().url().optional(),
  GEMINI_MODEL: z.string().min(1).default("gemini-2.5-flash"),
  /** The voice chain's fallback after Edge TTS: a Gemini TTS model (same key and base URL). */
  GEMINI_TTS_MODEL: z.string().min(1).default("gemini-2.5-flash-preview-tts"),
  /**
   * An OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM, OpenRouter...), up to the
   * path before `/chat/completions`; unset leaves the `openai-compat` provider unconfigured.
   */
  OPENAI_COMPAT_BASE_URL: z.string().url().optional(),
  /** Its bearer key; servers without keys accept any. */
  OPENAI_COMPAT_API_KEY: z.string().min(1).optional(),
  /** The model a route naming `openai-compat` without a model runs on. */
  OPENAI_COMPAT_MODEL: z.string().min(1).default("gpt-4o-mini"),
  /** `json_schema` where the server supports structured outputs; `json_object` works everywhere. */
  OPENAI_COMPAT_RESPONSE_FORMAT: z.enum(["json_object", "json_schema"]).default("json_object"),
  EDGE_TTS_WSS_URL: z.string().url().optional(),
  YOUTUBE_UPLOAD_BASE_URL: z.string().url().default("https://www.googleapis.com"),
  GOOGLE_OAUTH_TOKEN_URL: z.string().url().default("https://oauth2.googleapis.com/token"),
  /** Where `mdame account connect` sends the person to consent (Google's OAuth 2.0 authorization endpoint). */
  GOOGLE_OAUTH_AUTH_URL: z.string().url().default("https://accounts.google.com/o/oauth2/v2/auth"),
  /** Root of the YouTube Data API (`<root>/youtube/v3/...`), where `mdame account connect` finds the channel. */
  YOUTUBE_API_BASE_URL: z.string().url().default("https://youtube.googleapis.com"),
  /** Root of the YouTube Analytics API (`<root>/v2/reports`), where the engine reads how its videos did. */
  YOUTUBE_ANALYTICS_BASE_URL: z.string().url().default("https://youtubeanalytics.googleapis.com"),
  GOOGLE_OAUTH_CLIENT_ID: z.string().min(1),
  GOOGLE_OAUTH_CLIENT_SECRET: z.string().min(1),
  /** A TikTok app's client key and secret (Login Kit and the Content Posting API); unset, TikTok accounts cannot publish. */
  TIKTOK_CLIENT_KEY: z.string().min(1).optional(),
  TIKTOK_CLIENT_SECRET: z.string().min(1).optional(),
  /** TikTok's API host (`<host>/v2/oauth/token/`, `<host>/v2/post/publish/...`). */
  TIKTOK_API_BASE_URL: z.string().url().default("https://open.tiktokapis.com"),
  /** Where `mdame account connect tiktok` sends the person to consent (`<host>/v2/auth/authorize/`). */
  TIKTOK_AUTH_BASE_URL: z.string().url().default("https://www.tiktok.com"),
  /** A Meta app's id and secret (Facebook Login for Business, Instagram and Page publishing); unset, Instagram and Facebook accounts cannot publish. */
  META_APP_ID: z.string().regex(/^\d{1,20}$/, "META_APP_ID must be the Meta app's numeric id").optional(),
  META_APP_SECRET: z.string().min(1).optional(),
  /** Meta's Graph API host (`<host>/<version>/...`). */
  META_GRAPH_BASE_URL: z.string().url().default("https://graph.facebook.com"),
  /** Meta's upload host for resumable Reels uploads (`<host>/ig-api-upload/...`, `<host>/video-upload/...`). */
  META_UPLOAD_BASE_URL: z.string().url().default("https://rupload.facebook.com"),
  /** Where `mdame account connect instagram|facebook` sends the person to consent (`<host>/<version>/dialog/oauth`). */
  META_AUTH_BASE_URL: z.string().url().default("https://www.facebook.com"),
  /** The Graph API version the engine speaks (`v23.0`). */
  META_GRAPH_VERSION: z.string().regex(/^v\d{1,3}\.\d{1,2}$/, "META_GRAPH_VERSION must look like v23.0").default("v23.0"),
  TRENDS_BASE_URL: z.string().url().default("https://trends.google.com"),
  /** Hacker News Firebase API root (`<root>/v0/topstories.json`). */
  HACKER_NEWS_BASE_URL: z.string().url().default("https://hacker-news.firebaseio.com"),
  /** Wikimedia REST API host (`<host>/api/rest_v1/metrics/pageviews/top/...`). */
  WIKIMEDIA_BASE_URL: z.string().url().default("https://wikimedia.org"),
  /** Reddit's OAuth token endpoint host (`<host>/api/v1/access_token`) and its OAuth API host. */
  REDDIT_AUTH_BASE_URL: z.string().url().default("https://www.reddit.com"),
  REDDIT_API_BASE_URL: z.string().url().default("https://oauth.reddit.com"),
  /** A Reddit app's credentials (application-only OAuth); unset, a dimension's reddit sources fail and are skipped. */
  REDDIT_CLIENT_ID: z.string().min(1).optional(),
  REDDIT_CLIENT_SECRET: z.string().min(1).optional(),
  /** Visual backends (gpu-worker); a backend whose key or URL is unset is skipped. */
  GEMINI_IMAGE_MODEL: z.string().min(1).default("gemini-2.5-flash-image"),
  PEXELS_API_KEY: z.string().min(1).optional(),
  PEXELS_BASE_URL: z.string().url().default("https://api.pexels.com"),
  /** The operator's alerts (docs/reference/alerts.md): a bot token from BotFather; unset, alerts are recorded but not delivered. */
  TELEGRAM_BOT_TOKEN: z.string().regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "TELEGRAM_BOT_TOKEN must look like <bot id>:<secret>").optional(),
  TELEGRAM_API_BASE_URL: z.string().url().default("https://api.telegram.org"),
  /** The chat this environment's alerts go to (a dimension may name its own: alerts.telegram_chat_id). */
  TELEGRAM_CHAT_ID: z.string().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, "TELEGRAM_CHAT_ID must be a number or @channelname").optional(),
  /**
   * The Edge runtime's per-request limits, Supabase's hosted values by default: CPU time (2 s),
   * memory (256 MB) and wall clock (150 s on the free plan, 400 s on paid plans). The tick keeps
   * its CPU and wall time under them; the local edge host ends a request past any of them as the
   * hosted runtime does (docs/reference/supabase-wiring.md).
   */
  EDGE_CPU_LIMIT_MS: z.coerce.number({ message: "EDGE_CPU_LIMIT_MS must be a number of milliseconds" }).int().min(10).max(3_600_000).default(2_000),
  EDGE_MEMORY_LIMIT_MB: z.coerce.number({ message: "EDGE_MEMORY_LIMIT_MB must be a number of megabytes" }).int().min(16).max(65_536).default(256),
  EDGE_WALL_LIMIT_S: z.coerce.number({ message: "EDGE_WALL_LIMIT_S must be a number of seconds" }).int().min(1).max(3_600).default(150),
  /**
   * How long a claimed stage task or worker job stays invisible to other claims; its holder
   * extends it every third of that while it works, so only a crashed holder's work waits it out
   * before it is claimed again.
   */
  LEASE_S: z.coerce.number({ message: "LEASE_S must be a whole number of seconds" }).int().min(6).max(600).default(30),
  /** Stage tasks a tick runs at once: they mostly wait on the LLM, TTS and uploads. */
  STAGE_CONCURRENCY: z.coerce.number({ message: "STAGE_CONCURRENCY must be a whole number" }).int().min(1).max(64).default(8),
  /** The share of EDGE_CPU_LIMIT_MS after which a tick claims no more stage tasks; the rest finishes what it holds. */
  TICK_CPU_SHARE: z.coerce.number({ message: "TICK_CPU_SHARE must be a number" }).gt(0).max(0.9).default(0.5),
  /** A ComfyUI server (HTTP + WebSocket API) with the SVD / AnimateDiff models of gpu-worker/workflows. */
  COMFYUI_URL: z.string().url().optional(),
  FFMPEG_PATH: z.string().min(1).optional(),
  WORKER_ID: z.string().min(1).optional(),
});
export type EngineEnv = z.infer<typeof EngineEnv>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const LOOPBACK = /^(wss?|https?):\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;

/** True for a loopback (emulator) address. */
export function isLoopbackUrl(url: string): boolean {
  return LOOPBACK.test(url);
}

/**
 * The services an engine run whole on one machine may have on loopback in prod, each named in
 * `MDAME_ALLOW_LOOPBACK` (comma-separated): its own Edge Functions host and Storage, a ComfyUI
 * server, an OpenAI-compatible LLM server (Ollama, llama.cpp). Every other URL on loopback is an
 * emulator's in prod and stays refused.
 */
export const LOOPBACK_ALLOWANCES = {
  functions: ["FUNCTIONS_URL"],
  storage: ["SUPABASE_URL"],
  comfyui: ["COMFYUI_URL"],
  llm: ["OPENAI_COMPAT_BASE_URL"],
} as const satisfies Record<string, readonly (keyof EngineEnv)[]>;

/**
 * The URL variables ENV=prod refuses: every `*_URL` (DB_URL aside) on loopback that
 * `MDAME_ALLOW_LOOPBACK` does not allow by name. Throws ConfigError for a name it does not know.
 */
export function refusedLoopbackUrls(env: Record<string, unknown>, allow: string | undefined): string[] {
  const names = (allow ?? "").split(",").map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(n in LOOPBACK_ALLOWANCES));
  if (unknown.length > 0) {
    throw new ConfigError(`MDAME_ALLOW_LOOPBACK names unknown services (${unknown.join(", ")}): use some of ${Object.keys(LOOPBACK_ALLOWANCES).join(", ")}`);
  }
  const allowed = new Set<string>(names.flatMap((n) => LOOPBACK_ALLOWANCES[n as keyof typeof LOOPBACK_ALLOWANCES]));
  return Object.entries(env).filter(([k, v]) => k.endsWith("_URL") && k !== "DB_URL" && !allowed.has(k) && typeof v === "string" && isLoopbackUrl(v))
    .map(([k]) => k);
}

/** The `MDAME_ALLOW_LOOPBACK` name that allows a URL variable on loopback in prod, if any. */
export function loopbackAllowanceOf(key: string): string | undefined {
  return Object.entries(LOOPBACK_ALLOWANCES).find(([, keys]) => (keys as readonly string[]).includes(key))?.[0];
}

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * The environment with the project's names filled in from Supabase's injected ones where the
 * project's are unset: `DB_URL` from `SUPABASE_DB_URL`, `SERVICE_ROLE_KEY` from
 * `SUPABASE_SERVICE_ROLE_KEY` (and the reverse, so a worker given only the project's key can reach
 * Storage), `FUNCTIONS_URL` from `SUPABASE_URL` + `/functions/v1`.
 */
export function withSupabaseNames(source: Record<string, string | undefined>): Record<string, string | undefined> {
  const env = { ...source };
  if (!present(env.DB_URL) && present(env.SUPABASE_DB_URL)) env.DB_URL = env.SUPABASE_DB_URL;
  if (!present(env.SERVICE_ROLE_KEY) && present(env.SUPABASE_SERVICE_ROLE_KEY)) env.SERVICE_ROLE_KEY = env.SUPABASE_SERVICE_ROLE_KEY;
  if (!present(env.SUPABASE_SERVICE_ROLE_KEY) && present(env.SERVICE_ROLE_KEY)) env.SUPABASE_SERVICE_ROLE_KEY = env.SERVICE_ROLE_KEY;
  if (!present(env.FUNCTIONS_URL) && present(env.SUPABASE_URL)) env.FUNCTIONS_URL = `${env.SUPABASE_URL.replace(/\/+$/, "")}/functions/v1`;
  if (!present(env.STORAGE_BUCKET) && present(env.ENV)) env.STORAGE_BUCKET = `mdame-${env.ENV}`;
  return env;
}

/** The storage keys a process needs for the backend it is configured with. */
/**
 * What only the publishing component (the edge) holds: the key ring that opens the accounts' sealed
 * credentials and the OAuth clients' secrets. The workers are started without them
 * (docs/reference/roles.md).
 */
export const PUBLISHER_ONLY_ENV_KEYS = [
  "CREDENTIALS_KEY",
  "CREDENTIALS_KEYS_PREVIOUS",
  "GOOGLE_OAUTH_CLIENT_SECRET",
  "TIKTOK_CLIENT_SECRET",
  "META_APP_SECRET",
] as const;

/** The Meta app and hosts (Instagram and Facebook publishing, their connect flow). */
export const META_ENV_KEYS = [
  "META_APP_ID",
  "META_APP_SECRET",
  "META_GRAPH_BASE_URL",
  "META_UPLOAD_BASE_URL",
  "META_AUTH_BASE_URL",
  "META_GRAPH_VERSION",
] as const;

export const STORAGE_ENV_KEYS = ["STORAGE_BACKEND", "STORAGE_LOCAL_DIR", "SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "STORAGE_BUCKET"] as const;

/** The trend sources' keys: Google Trends, Hacker News, Wikimedia pageviews, Reddit (RSS/Atom feeds are URLs in a dimension's config). */
export const TREND_SOURCE_ENV_KEYS = [
  "TRENDS_BASE_URL",
  "HACKER_NEWS_BASE_URL",
  "WIKIMEDIA_BASE_URL",
  "REDDIT_AUTH_BASE_URL",
  "REDDIT_API_BASE_URL",
  "REDDIT_CLIENT_ID",
  "REDDIT_CLIENT_SECRET",
] as const;

/** The Telegram alerts' keys. */
export const TELEGRAM_ENV_KEYS = ["TELEGRAM_BOT_TOKEN", "TELEGRAM_API_BASE_URL", "TELEGRAM_CHAT_ID"] as const;

/**
 * The key ring and the webhook secrets are checked whole once their variables are parsed: a bad
 * entry of a list, or a key given twice, stops the process at start-up rather than at first use.
 */
function checkRings(env: Partial<EngineEnv>): void {
  const problems: string[] = [];
  const { CREDENTIALS_KEY, CREDENTIALS_KEYS_PREVIOUS, WEBHOOK_SECRET, WEBHOOK_SECRETS_PREVIOUS } = env;
  if (CREDENTIALS_KEYS_PREVIOUS !== undefined) {
    if (CREDENTIALS_KEY === undefined) problems.push("CREDENTIALS_KEYS_PREVIOUS is set without CREDENTIALS_KEY (the current key)");
    else noteRefusal(problems, CredentialKeyRingError, () => credentialKeyRing({ CREDENTIALS_KEY, CREDENTIALS_KEYS_PREVIOUS }));
  }
  if (WEBHOOK_SECRETS_PREVIOUS !== undefined) {
    if (WEBHOOK_SECRET === undefined) problems.push("WEBHOOK_SECRETS_PREVIOUS is set without WEBHOOK_SECRET (the newest secret)");
    else noteRefusal(problems, WebhookVerificationError, () => webhookSecrets({ WEBHOOK_SECRET, WEBHOOK_SECRETS_PREVIOUS }));
  }
  if (problems.length > 0) throw new ConfigError(`invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
}

/** Runs `open`: the message of a `Refusal` it throws goes to `problems`, anything else on up. */
function noteRefusal(problems: string[], Refusal: new (...args: never[]) => Error, open: () => unknown): void {
  try {
    open();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    problems.push(error.message);
  }
}

/** Parses the named keys of the environment; throws ConfigError naming every problem. */
export function loadEnv<K extends keyof EngineEnv>(keys: readonly K[], source: Record<string, string | undefined> = process.env): Pick<EngineEnv, K> {
  const resolved = withSupabaseNames(source);
  let wanted: readonly (keyof EngineEnv)[] = keys;
  // The local-directory backend needs no Supabase project.
  if (resolved.STORAGE_BACKEND === "local") wanted = keys.filter((k) => k !== "SUPABASE_URL" && k !== "SUPABASE_SERVICE_ROLE_KEY" && k !== "STORAGE_BUCKET");
  const mask = Object.fromEntries(wanted.map((k) => [k, true]));
  const schema = EngineEnv.pick(mask as never);
  const result = schema.safeParse(resolved);
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const name = i.path.join(".");
      // Zod's generic "Invalid input ... received undefined" says less than "not set".
      const unset = resolved[name] === undefined && i.message.startsWith("Invalid input");
      return `  ${name}: ${unset ? "not set" : i.message}`;
    });
    throw new ConfigError(`invalid environment:\n${lines.join("\n")}`);
  }
  const env = result.data as unknown as Pick<EngineEnv, K>;
  checkRings(env as Partial<EngineEnv>);
  if ((env as Partial<EngineEnv>).ENV === "prod") {
    const local = refusedLoopbackUrls(env as Record<string, unknown>, resolved.MDAME_ALLOW_LOOPBACK);
    if (local.length > 0) throw new ConfigError(`ENV=prod refuses emulator URLs: ${local.join(", ")}`);
  }
  return env;
}
