/** `mdame account list|connect|pause|resume|remove`: publishing accounts through the API. */
import type { Account } from "../../shared/contracts/account.ts";
import type { ApiClient } from "../api-client.ts";
import { CliError, EXIT } from "../errors.ts";
import type { ApiConfig } from "../config.ts";
import { connectMeta, type MetaPlatform } from "../meta-connect.ts";
import {
  type MetaOAuthConfig,
  type OAuthConfig,
  resolveGoogleEndpoints,
  resolveMetaOAuthConfig,
  resolveOAuthConfig,
  resolveTikTokOAuthConfig,
  type TikTokOAuthConfig,
} from "../oauth-config.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLine, printLines } from "../output.ts";
import { connectTikTok } from "../tiktok-connect.ts";

/** The accounts as table lines; credentials appear only as present or not. Pure, for tests. */
export function formatAccountList(accounts: Account[], nowMs: number, width?: number): string[] {
  if (accounts.length === 0) {
    return [
      "no accounts yet: connect one with `mdame account connect youtube --dimension <id>`, `mdame account connect tiktok --dimension <id> --channel @handle`, " +
      "or `mdame account connect instagram|facebook --dimension <id> [--page <name>]`",
    ];
  }
  return formatTable(
    ["id", "dimension", "platform", "project", "state", "credentials", "connected", "channel"],
    accounts.map((a) => [
      a.id,
      a.dimension_id,
      a.platform,
      a.platform === "youtube" ? a.youtube_project ?? `(unregistered ${a.oauth_client_id})` : "-",
      a.active ? "active" : "paused",
      a.health === "needs_reconnect" ? "reconnect" : a.has_credentials ? "stored" : "missing",
      a.connected_at ? `${formatAge(a.connected_at, nowMs)} ago` : "-",
      `${a.channel_handle}${a.channel_id ? ` (${a.channel_id})` : ""}`,
    ]),
    width,
  ).concat(
    accounts.filter((a) => a.health === "needs_reconnect").map((a) =>
      `${a.channel_handle} (${a.dimension_id}) needs reconnecting${a.health_since ? ` since ${formatAge(a.health_since, nowMs)} ago` : ""}` +
      `${a.health_reason ? ` (${a.health_reason})` : ""}: ${reconnectCommand(a)}`
    ),
  );
}

/**
 * The command that clears needs_reconnect: a new consent for the same channel of the same dimension
 * (an Instagram account named by its @username, a Page by its id).
 */
export function reconnectCommand(a: Pick<Account, "platform" | "dimension_id" | "channel_handle" | "channel_id">): string {
  const base = `mdame account connect ${a.platform} --dimension ${a.dimension_id}`;
  if (a.platform === "instagram") return `${base} --page ${a.channel_handle}`;
  if (a.platform === "facebook") return `${base} --page ${a.channel_id ?? a.channel_handle}`;
  return `${base} --channel ${a.channel_handle}`;
}

export async function accountListCommand(command: { dimension: string | null; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const { accounts } = await api.listAccounts(command.dimension);
  if (command.json) printJson(ctx.out, accounts);
  else printLines(ctx.out, formatAccountList(accounts, ctx.now(), ctx.out.columns || undefined));
  return EXIT.ok;
}

/** Where `account connect` signs in: resolved by the caller for the platform the command names. */
type ConnectSignIn =
  | { platform: "youtube"; oauth: OAuthConfig }
  | { platform: "tiktok"; oauth: TikTokOAuthConfig }
  | { platform: "instagram"; oauth: MetaOAuthConfig }
  | { platform: "facebook"; oauth: MetaOAuthConfig };

/**
 * The client the connect signs in with: TikTok's app; for YouTube the environment's client (the
 * project default), or the registered project's, asked of the API before any consent, so an
 * unknown name ends the command (exit 4) with nothing stored.
 */
export async function connectSignIn(
  command: { platform: "youtube" | "tiktok" | MetaPlatform; project?: string | null },
  env: Record<string, string | undefined>,
  config: ApiConfig,
  api: ApiClient,
): Promise<ConnectSignIn> {
  if (command.platform === "tiktok") return { platform: "tiktok", oauth: resolveTikTokOAuthConfig(env, config) };
  if (command.platform === "instagram") return { platform: "instagram", oauth: resolveMetaOAuthConfig(env, config) };
  if (command.platform === "facebook") return { platform: "facebook", oauth: resolveMetaOAuthConfig(env, config) };
  if (!command.project) return { platform: "youtube", oauth: resolveOAuthConfig(env, config) };
  const endpoints = resolveGoogleEndpoints(env, config);
  const client = await api.youtubeProjectClient(command.project);
  return { platform: "youtube", oauth: { ...endpoints, clientId: client.oauth_client_id, clientSecret: client.client_secret } };
}

const PLATFORM_ACCOUNT: Record<Account["platform"], string> = {
  youtube: "YouTube channel",
  tiktok: "TikTok account",
  instagram: "Instagram account",
  facebook: "Facebook Page",
};

export async function accountConnectCommand(
  command: {
    platform: "youtube" | "tiktok" | MetaPlatform;
    dimension: string;
    channel?: string | null;
    page?: string | null;
    loginHint: string | null;
    timeoutS: number;
    browser: boolean;
    json: boolean;
  },
  api: ApiClient,
  signIn: ConnectSignIn,
  ctx: CommandContext,
): Promise<number> {
  const common = { dimension: command.dimension, loginHint: command.loginHint, timeoutMs: command.timeoutS * 1000, openBrowser: command.browser };
  let result;
  if (signIn.platform === "tiktok") {
    // The parser makes --channel required for TikTok; this guards other callers.
    if (!command.channel) throw new CliError("account connect tiktok needs --channel <@handle>", EXIT.usage);
    result = await connectTikTok({ ...common, channel: command.channel }, signIn.oauth, api, ctx.err);
  } else if (signIn.platform === "instagram" || signIn.platform === "facebook") {
    result = await connectMeta({ ...common, platform: signIn.platform, page: command.page ?? null }, signIn.oauth, api, ctx.err);
  } else {
    // Google's client libraries are loaded for this command only: every other command starts without them.
    const { connectYouTube } = await import("../youtube-connect.ts");
    result = await connectYouTube({ ...common, channel: command.channel ?? null }, signIn.oauth, api, ctx.err);
  }
  if (command.json) printJson(ctx.out, result);
  else {
    const a = result.account;
    printLine(
      ctx.out,
      `${PLATFORM_ACCOUNT[a.platform]} ${a.channel_handle}${a.channel_id ? ` (${a.channel_id})` : ""} ${
        result.created ? "connected to" : "reconnected to"
      } dimension ${a.dimension_id}: account ${a.id}`,
    );
    if (a.platform === "youtube") printLine(ctx.out, `  through Google project ${a.youtube_project ?? a.oauth_client_id}, whose quota its uploads spend`);
    printLine(
      ctx.out,
      `  credentials sealed and stored by the API${a.active ? "" : "; the account is paused (resume it with `mdame account resume " + a.id + "`)"}`,
    );
  }
  return EXIT.ok;
}

export async function accountActiveCommand(command: { id: string; json: boolean }, active: boolean, api: ApiClient, ctx: CommandContext): Promise<number> {
  const account = await api.setAccountActive(command.id, active);
  if (command.json) printJson(ctx.out, account);
  else printLine(ctx.out, `account ${account.id} (${account.channel_handle}, ${account.dimension_id}) ${active ? "resumed" : "paused: publishing skips it"}`);
  return EXIT.ok;
}

export async function accountRemoveCommand(command: { id: string; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const result = await api.removeAccount(command.id);
  if (command.json) printJson(ctx.out, result);
  else if (result.deleted) printLine(ctx.out, `account ${result.account_id} removed`);
  else printLine(ctx.out, `account ${result.account_id} kept as the record of its ${result.publications} publication(s): paused, credentials erased`);
  return EXIT.ok;
}
