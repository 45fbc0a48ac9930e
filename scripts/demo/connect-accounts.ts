/**
 * Connects a YouTube account for each dimension the way a person does: it runs
 * `mdame account connect youtube --dimension <id>` as its own process, reads the consent address the
 * command prints, and plays the person's browser by requesting that address; the OAuth emulator
 * consents and redirects to the command's loopback address, and the command finishes the exchange
 * and hands the refresh token to the API. Used by `npm run demo` and by every test that publishes.
 * connectTikTokThroughCli does the same with `mdame account connect tiktok` and the TikTok emulator,
 * connectMetaThroughCli with `mdame account connect instagram|facebook` and the Meta emulator's
 * login dialog.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { AccountList, ConnectedAccount } from "../../shared/contracts/account.ts";
import { DimensionList } from "../../shared/contracts/dimension.ts";
import { paths } from "../../stack/paths.ts";
import { LOCAL_META_APP_ID, LOCAL_META_APP_SECRET } from "../../stack/stack-env.ts";

export interface ConnectAccountsOptions {
  /** The stack's environment: FUNCTIONS_URL, SERVICE_ROLE_KEY, GOOGLE_OAUTH_CLIENT_ID/SECRET, EMULATOR_URL (TIKTOK_* optional). */
  env: Record<string, string>;
  /** Dimensions to connect; default: every active one the API lists. */
  dimensions?: string[];
  /** Channel name per dimension (the emulator's signed-in user); default `<dimension>-demo`. */
  channelFor?: (dimension: string) => string;
  log?: (line: string) => void;
  /** How long one connect may take, end to end. */
  timeoutS?: number;
}

export interface ConnectOutcome {
  dimension: string;
  /** null when the dimension already had an active account with credentials (left alone). */
  connected: ConnectedAccount | null;
}

/** The environment `mdame account connect` needs to sign in against the emulator. */
export function connectEnv(env: Record<string, string>): Record<string, string> {
  const emulator = env.EMULATOR_URL!.replace(/\/+$/, "");
  return {
    FUNCTIONS_URL: env.FUNCTIONS_URL!,
    SERVICE_ROLE_KEY: env.SERVICE_ROLE_KEY!,
    GOOGLE_OAUTH_CLIENT_ID: env.GOOGLE_OAUTH_CLIENT_ID!,
    GOOGLE_OAUTH_CLIENT_SECRET: env.GOOGLE_OAUTH_CLIENT_SECRET!,
    GOOGLE_OAUTH_AUTH_URL: env.GOOGLE_OAUTH_AUTH_URL ?? `${emulator}/o/oauth2/v2/auth`,
    GOOGLE_OAUTH_TOKEN_URL: env.GOOGLE_OAUTH_TOKEN_URL ?? `${emulator}/token`,
    YOUTUBE_API_BASE_URL: env.YOUTUBE_API_BASE_URL ?? emulator,
    // `mdame account connect tiktok`: the stack's TikTok app (the emulator takes any key and secret).
    TIKTOK_CLIENT_KEY: env.TIKTOK_CLIENT_KEY ?? "local-tiktok-client",
    TIKTOK_CLIENT_SECRET: env.TIKTOK_CLIENT_SECRET ?? "local-tiktok-secret",
    TIKTOK_AUTH_BASE_URL: env.TIKTOK_AUTH_BASE_URL ?? emulator,
    TIKTOK_API_BASE_URL: env.TIKTOK_API_BASE_URL ?? emulator,
    // `mdame account connect instagram|facebook`: the stack's Meta app, which the emulator registers.
    META_APP_ID: env.META_APP_ID ?? LOCAL_META_APP_ID,
    META_APP_SECRET: env.META_APP_SECRET ?? LOCAL_META_APP_SECRET,
    META_AUTH_BASE_URL: env.META_AUTH_BASE_URL ?? emulator,
    META_GRAPH_BASE_URL: env.META_GRAPH_BASE_URL ?? emulator,
  };
}

async function api<T>(env: Record<string, string>, path: string, parse: (value: unknown) => T): Promise<T> {
  const response = await fetch(`${env.FUNCTIONS_URL}${path}`, {
    headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` },
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return parse(await response.json());
}

/** Dimensions that already publish somewhere: an active account with stored credentials. */
async function connectedDimensions(env: Record<string, string>): Promise<Set<string>> {
  const { accounts } = await api(env, "/pipeline/accounts", (v) => AccountList.parse(v));
  return new Set(accounts.filter((a) => a.active && a.has_credentials).map((a) => a.dimension_id));
}

async function activeDimensions(env: Record<string, string>): Promise<string[]> {
  const { dimensions } = await api(env, "/pipeline/dimensions", (v) => DimensionList.parse(v));
  return dimensions.filter((d) => d.active).map((d) => d.id);
}

/**
 * Runs one `mdame account connect <platform> ...` and acts as the browser: requests the consent
 * address the command prints on stderr and follows the emulator's redirect to the command's
 * loopback address. Resolves with what the command printed (`--json`); rejects with its output
 * when it fails.
 */
function runConnect(
  env: Record<string, string>,
  platform: "youtube" | "tiktok" | "instagram" | "facebook",
  dimension: string,
  extra: string[],
  timeoutS: number,
): Promise<ConnectedAccount> {
  const args = [
    join(paths.root, "cli", "mdame.ts"),
    "account",
    "connect",
    platform,
    "--dimension",
    dimension,
    ...extra,
    "--no-browser",
    "--timeout",
    String(timeoutS),
    "--json",
  ];
  const child = spawn(process.execPath, args, {
    cwd: paths.root,
    env: { ...process.env, ...connectEnv(env) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let browsed: Promise<void> | null = null;
  return new Promise<ConnectedAccount>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      const consentUrl = /^\s+(https?:\/\/\S+)$/m.exec(stderr)?.[1];
      if (consentUrl && browsed === null) {
        // The browser: follows the consent page's redirect to the command's loopback address.
        browsed = fetch(consentUrl, { redirect: "follow", signal: AbortSignal.timeout(timeoutS * 1000) }).then(
          async (response) => {
            if (!response.ok) throw new Error(`the consent page answered ${response.status}: ${await response.text()}`);
          },
        );
        browsed.catch(() => {});
      }
    });
    child.once("error", reject);
    child.once("close", async (code) => {
      const output = `${stderr}${stdout}`.trim();
      try {
        if (browsed) await browsed;
        if (code !== 0) throw new Error(`exited ${code}`);
        resolve(ConnectedAccount.parse(JSON.parse(stdout)));
      } catch (error) {
        reject(new Error(`mdame account connect ${platform} --dimension ${dimension} failed (${(error as Error).message}):\n${output}`));
      }
    });
  });
}

/**
 * `mdame account connect youtube` as a person runs it, signed in on the emulator as `channel`;
 * through the registered Google project `project` when given (else the environment's client).
 */
export function connectThroughCli(env: Record<string, string>, dimension: string, channel: string, timeoutS = 60, project?: string): Promise<ConnectedAccount> {
  return runConnect(env, "youtube", dimension, ["--login-hint", channel, ...(project ? ["--project", project] : [])], timeoutS);
}

/**
 * `mdame account connect tiktok` as a person runs it: signed in on the TikTok emulator as `user`
 * (its `login_hint`), the account's handle given as `--channel @<user>`.
 */
export function connectTikTokThroughCli(env: Record<string, string>, dimension: string, user: string, timeoutS = 60): Promise<ConnectedAccount> {
  return runConnect(env, "tiktok", dimension, ["--channel", `@${user}`, "--login-hint", user], timeoutS);
}

/**
 * `mdame account connect instagram|facebook` as a person runs it: signed in on the Meta emulator as
 * `user` (its `login_hint`), the Page chosen with `--page` when given.
 */
export function connectMetaThroughCli(
  env: Record<string, string>,
  platform: "instagram" | "facebook",
  dimension: string,
  user: string,
  page?: string,
  timeoutS = 60,
): Promise<ConnectedAccount> {
  return runConnect(env, platform, dimension, ["--login-hint", user, ...(page ? ["--page", page] : [])], timeoutS);
}

/**
 * `user`'s Instagram account and Facebook Page for `dimension`, through `mdame account connect
 * instagram` and `mdame account connect facebook`, each unless the dimension has an active,
 * connected account on that platform already.
 */
export async function connectMetaAccounts(
  env: Record<string, string>,
  dimension: string,
  user: string,
  log: (line: string) => void = () => {},
): Promise<ConnectOutcome[]> {
  const { accounts } = await api(env, "/pipeline/accounts", (v) => AccountList.parse(v));
  const outcomes: ConnectOutcome[] = [];
  for (const platform of ["instagram", "facebook"] as const) {
    if (accounts.some((a) => a.dimension_id === dimension && a.platform === platform && a.active && a.has_credentials)) {
      log(`account: ${dimension} already has a connected ${platform} account`);
      outcomes.push({ dimension, connected: null });
      continue;
    }
    const result = await connectMetaThroughCli(env, platform, dimension, user);
    log(`account: connected ${platform} account ${result.account.channel_handle} to ${dimension} (mdame account connect ${platform})`);
    outcomes.push({ dimension, connected: result });
  }
  return outcomes;
}

/**
 * A TikTok account for `dimension` (the TikTok emulator's creator `user`), through `mdame account
 * connect tiktok`, unless the dimension has an active TikTok account with credentials already.
 */
export async function connectTikTokAccount(
  env: Record<string, string>,
  dimension: string,
  user: string,
  log: (line: string) => void = () => {},
): Promise<ConnectOutcome> {
  const { accounts } = await api(env, "/pipeline/accounts", (v) => AccountList.parse(v));
  if (accounts.some((a) => a.dimension_id === dimension && a.platform === "tiktok" && a.active && a.has_credentials)) {
    log(`account: ${dimension} already has a connected TikTok account`);
    return { dimension, connected: null };
  }
  const result = await connectTikTokThroughCli(env, dimension, user);
  log(`account: connected TikTok account ${result.account.channel_handle} to ${dimension} (mdame account connect tiktok)`);
  return { dimension, connected: result };
}

/** Connects every dimension that has no active account with credentials yet; others are left alone. */
export async function connectAccounts(options: ConnectAccountsOptions): Promise<ConnectOutcome[]> {
  const log = options.log ?? (() => {});
  const dimensions = options.dimensions ?? (await activeDimensions(options.env));
  const connected = await connectedDimensions(options.env);
  const outcomes: ConnectOutcome[] = [];
  for (const dimension of dimensions) {
    if (connected.has(dimension)) {
      log(`account: ${dimension} already has a connected account`);
      outcomes.push({ dimension, connected: null });
      continue;
    }
    const channel = options.channelFor?.(dimension) ?? `${dimension}-demo`;
    const result = await connectThroughCli(options.env, dimension, channel, options.timeoutS);
    log(`account: connected YouTube channel ${result.account.channel_handle} to ${dimension} (mdame account connect)`);
    outcomes.push({ dimension, connected: result });
  }
  return outcomes;
}
