import process from "node:process";
import { z } from "zod";

/**
 * Every environment variable the engine reads, in one place. Each process parses the slice it
 * needs at start-up and refuses to start with a clear message otherwise.
 */
export const EngineEnv = z.object({
  ENV: z.enum(["dev", "prod"], { message: "ENV must be set to dev or prod" }),
  DB_URL: z.string().url(),
  FUNCTIONS_URL: z.string().url(),
  SERVICE_ROLE_KEY: z.string().min(16),
  WEBHOOK_SECRET: z.string().startsWith("whsec_"),
  CREDENTIALS_KEY: z.string().min(40, "CREDENTIALS_KEY must be 32 bytes, base64"),
  STORAGE_BACKEND: z.enum(["local"]).default("local"),
  STORAGE_LOCAL_DIR: z.string().min(1).default(".local/storage"),
  GEMINI_API_KEY: z.string().min(1),
  GEMINI_BASE_URL: z.string().url().optional(),
  GEMINI_MODEL: z.string().min(1).default("gemini-2.5-flash"),
  EDGE_TTS_WSS_URL: z.string().url().optional(),
  YOUTUBE_UPLOAD_BASE_URL: z.string().url().default("https://www.googleapis.com"),
  GOOGLE_OAUTH_TOKEN_URL: z.string().url().default("https://oauth2.googleapis.com/token"),
  GOOGLE_OAUTH_CLIENT_ID: z.string().min(1),
  GOOGLE_OAUTH_CLIENT_SECRET: z.string().min(1),
  TRENDS_BASE_URL: z.string().url().default("https://trends.google.com"),
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

/** Parses the named keys of the environment; throws ConfigError naming every problem. */
export function loadEnv<K extends keyof EngineEnv>(keys: readonly K[], source: Record<string, string | undefined> = process.env): Pick<EngineEnv, K> {
  const mask = Object.fromEntries(keys.map((k) => [k, true])) as { [P in K]: true };
  const schema = EngineEnv.pick(mask as never);
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n${lines.join("\n")}`);
  }
  const env = result.data as unknown as Pick<EngineEnv, K>;
  if ((env as Partial<EngineEnv>).ENV === "prod") {
    const local = Object.entries(env).filter(([k, v]) => k.endsWith("_URL") && k !== "DB_URL" && typeof v === "string" && LOOPBACK.test(v));
    if (local.length > 0) {
      throw new ConfigError(`ENV=prod refuses emulator URLs: ${local.map(([k]) => k).join(", ")}`);
    }
  }
  return env;
}
