/**
 * Local emulator of the external services MD-AME talks to (docs/design.md, "Local stack"): one Bun
 * HTTP + WebSocket server that speaks each service's documented protocol, so the real client
 * libraries run unchanged against it.
 *
 *   bun emulators/main.ts        # EMULATOR_PORT (default: MDAME_EMULATOR_PORT, else 54330), EMULATOR_DATA_DIR (.local/emulators)
 *                                # SUPABASE_SERVICE_ROLE_KEY: the one key Storage accepts; EMULATOR_STORAGE_MAX_BYTES: object cap
 *                                # EMULATOR_YOUTUBE_INSERT_CALLS_PER_DAY (100), EMULATOR_YOUTUBE_UNITS_PER_DAY (10000),
 *                                # EMULATOR_YOUTUBE_STATS_UNITS_PER_DAY (10000: videos.batchGetStats),
 *                                # EMULATOR_YOUTUBE_CHANNEL_UPLOADS_PER_24H (15): YouTube's defaults for every project and channel
 *                                # EMULATOR_ANALYTICS_SEED (md-ame): the seed of the YouTube Analytics figures
 *                                # EMULATOR_GOOGLE_OAUTH_CLIENTS (id:secret,...): Google OAuth clients accepted only with their secret
 *
 * Routes:
 *   GET  /_emulator/health                          200 {ok:true}
 *   POST /_emulator/reset                           clears faults, tokens and revocations, uploads, YouTube quota used, the fooled model's attacks
 *                                                   and settings, TikTok grants, publishes and settings, Meta apps, users, tokens,
 *                                                   containers, uploads and posts, Storage buckets
 *                                                   and objects; the clock back to real time
 *   GET  /_emulator/faults, POST /_emulator/faults   fault injection (see faults/fault-book.ts)
 *   GET|DELETE /_emulator/calls                     the paid provider calls answered, per provider (see billed-calls.ts)
 *   GET|POST /_emulator/oauth/clients, GET /_emulator/oauth/refreshes   Google OAuth clients and refresh log (see google-oauth/clients.ts)
 *   GET|POST|DELETE /_emulator/clock                the emulator's notion of now (see clock/admin.ts)
 *   GET  /_emulator/youtube/videos, /usage; PUT /_emulator/youtube/projects/{client_id}, /channels/{channel};
 *   POST /_emulator/youtube/channels/{channel}/outside-uploads   YouTube admin (see youtube/admin.ts)
 *   GET|POST /_emulator/oauth/revocations            revoked refresh tokens (see google-oauth/revocation.ts)
 *   GET  /_emulator/tiktok/posts, /publishes; GET|PUT /_emulator/tiktok/posts/{post_id}/figures;
 *   PUT  /_emulator/tiktok/clients/{client_key}, /settings; GET|POST /_emulator/tiktok/revocations
 *                                                   TikTok admin (see tiktok/admin.ts)
 *   POST /v1beta/models/{model}:generateContent     Gemini (also /v1/ and /v1alpha/)
 *   WS   /consumer/speech/synthesize/readaloud/edge/v1   Edge TTS
 *   POST /token, POST /revoke, GET /o/oauth2/v2/auth   Google OAuth 2.0 (see google-oauth/routes.ts)
 *   POST /upload/youtube/v3/videos?uploadType=resumable, PUT <session URI>   YouTube upload (videos.insert)
 *   GET  /youtube/v3/channels, /youtube/v3/videos, /youtube/v3/videos:batchGetStats, /youtube/v3/videoCategories;
 *   PUT  /youtube/v3/videos; POST /upload/youtube/v3/thumbnails/set
 *                                                   YouTube Data API (see youtube/routes.ts for costs)
 *   GET  /v2/auth/authorize/, POST /v2/oauth/token/, POST /v2/oauth/revoke/   TikTok Login Kit OAuth v2 (see tiktok/oauth.ts)
 *   POST /v2/post/publish/creator_info/query/, /v2/post/publish/video/init/, /v2/post/publish/status/fetch/;
 *   PUT  /tiktok-upload/video/?upload_id=            TikTok Content Posting API, Direct Post (see tiktok/publish.ts, upload.ts)
 *   POST /v2/video/query/?fields=...                 TikTok Display API video/query, seeded figures (see tiktok/video-query.ts)
 *   GET  /{v}/dialog/oauth, /{v}/oauth/access_token, /{v}/debug_token, /{v}/me/accounts   Meta login and tokens (v like v23.0)
 *   POST /{v}/{ig-user-id}/media, /media_publish; GET /{v}/{container-id}, /{v}/{ig-user-id}/content_publishing_limit,
 *        /{v}/{ig-media-id}[/insights]; POST /ig-api-upload/{v}/{container-id}   Instagram Reels publishing
 *   POST /{v}/{page-id}/video_reels, /video-upload/{v}/{video-id}; GET /{v}/{video-id}[/video_insights]   Facebook Page Reels
 *   /_emulator/meta/posts, /uploads, /settings, /apps, /users, /grants, /limits, /revocations   Meta admin (see meta/routes.ts)
 *   GET  /v2/reports                                 YouTube Analytics reports.query (see youtube-analytics/routes.ts);
 *   GET  /_emulator/youtube-analytics/queries, GET|PUT .../settings, PUT .../videos/{id}   its admin (admin.ts)
 *   GET  /trending/rss?geo=US|ID                     Google Trends daily RSS
 *   POST /bot<token>/getMe, /sendMessage, /sendPhoto  Telegram Bot API; GET /_emulator/telegram/messages... (see telegram/)
 *   GET  /videos/search, /video-files/...            Pexels video search and downloads (see pexels/routes.ts)
 *   /storage/v1/...                                 Supabase Storage REST API and TUS uploads (see storage/routes.ts)
 */
import process from "node:process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { EmulatorContext } from "./context.ts";
import { isDroppedConnection, jsonResponse } from "./context.ts";
import { readAdminJson } from "./admin-json.ts";
import { EmulatorClock } from "./clock/clock.ts";
import { handleClockAdmin } from "./clock/admin.ts";
import { FaultBook } from "./faults/fault-book.ts";
import { BilledCalls } from "./billed-calls.ts";
import { fooledBookOf, handleGemini } from "./gemini/routes.ts";
import { handleOpenAi } from "./openai/routes.ts";
import { EDGE_TTS_PATH, type EdgeTtsSocketData, edgeTtsWebSocket, upgradeEdgeTts } from "./edge-tts/routes.ts";
import { handleOAuth } from "./google-oauth/routes.ts";
import { TokenStore } from "./google-oauth/token-store.ts";
import { handleYouTube, resetYouTube } from "./youtube/routes.ts";
import { handleTikTok, resetTikTok } from "./tiktok/routes.ts";
import { handleMeta, resetMeta } from "./meta/routes.ts";
import { handleTelegram } from "./telegram/routes.ts";
import { resetTelegram } from "./telegram/admin.ts";
import { handleYouTubeAnalytics, resetAnalytics } from "./youtube-analytics/routes.ts";
import { DEFAULT_LIMITS, type YouTubeLimits } from "./youtube/rules.ts";
import { handleTrends } from "./trends/routes.ts";
import { handleSources } from "./sources/routes.ts";
import { handleReddit } from "./sources/reddit.ts";
import { handlePexels } from "./pexels/routes.ts";
import { handlePostedFeeds } from "./sources/posted-feeds.ts";
import { handleFaultAdmin } from "./faults/admin.ts";
import { parseClientList } from "./google-oauth/clients.ts";
import { handleStorage, resetStorage } from "./storage/routes.ts";
import { StorageDisk } from "./storage/disk.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";

export interface EmulatorOptions {
  /** 0 picks a free port. */
  port?: number;
  hostname?: string;
  dataDir: string;
  /** The Gemini API key to accept (any other is refused as invalid); unset accepts any key. */
  geminiApiKey?: string;
  /** The Pexels API key to accept (any other is refused with 401); unset accepts any key. */
  pexelsApiKey?: string;
  /** The key Supabase Storage accepts (`apikey` and bearer); without one, Storage refuses every call. */
  storageServiceKey?: string;
  /** Largest object (and request body) Storage accepts, in bytes; 512 MiB unless given. */
  storageMaxObjectBytes?: number;
  /** YouTube's default buckets and channel cap (youtube/rules.ts); each one not given keeps YouTube's default. */
  youtubeLimits?: Partial<YouTubeLimits>;
  /** A Meta app registered at start and after every reset (the stack's META_APP_ID and META_APP_SECRET). */
  metaApp?: { appId: string; appSecret: string };
  /** The Telegram bot token the Bot API accepts (unset: any well-formed token) and the chats that exist. */
  telegramBotToken?: string;
  telegramChatIds?: string[];
  /** Google OAuth clients (client id -> secret) accepted only with their secret (google-oauth/clients.ts); more through its admin route. */
  googleOAuthClients?: Record<string, string>;
  /** Receives one object per log line; defaults to a JSON line on stdout. */
  log?: (entry: Record<string, unknown>) => void;
}

export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:54330`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

type Handler = (req: Request, url: URL, ctx: EmulatorContext) => Promise<Response | undefined>;

const SERVICES: Array<[string, Handler]> = [
  ["gemini", handleGemini],
  ["openai", handleOpenAi],
  ["oauth", handleOAuth],
  ["youtube", handleYouTube],
  ["youtube-analytics", handleYouTubeAnalytics],
  ["tiktok", handleTikTok],
  ["meta", handleMeta],
  ["telegram", handleTelegram],
  ["trends", handleTrends],
  ["sources", handleSources],
  ["reddit", handleReddit],
  ["storage", handleStorage],
  ["pexels", handlePexels],
  ["posted-feeds", handlePostedFeeds],
  ["fault-admin", handleFaultAdmin],
  ["clock", handleClockAdmin],
];

const DEFAULT_STORAGE_MAX_OBJECT_BYTES = 512 * 1024 * 1024;

export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const log = options.log ?? ((entry) => process.stdout.write(`${JSON.stringify(entry)}\n`));
  const tokens = new TokenStore(dataDir, options.googleOAuthClients);
  await tokens.load();
  const clock = new EmulatorClock(dataDir);
  await clock.load();
  const disk = new StorageDisk(dataDir);
  await disk.init();
  const storage = { serviceKey: options.storageServiceKey, maxObjectBytes: options.storageMaxObjectBytes ?? DEFAULT_STORAGE_MAX_OBJECT_BYTES, disk };
  const ctx: EmulatorContext = {
    dataDir,
    faults: new FaultBook(),
    tokens,
    clock,
    youtubeLimits: { ...DEFAULT_LIMITS, ...options.youtubeLimits },
    storage,
    log,
    geminiApiKey: options.geminiApiKey || undefined,
    pexelsApiKey: options.pexelsApiKey || undefined,
    telegramBotToken: options.telegramBotToken || undefined,
    metaApp: options.metaApp,
    telegramChatIds: options.telegramChatIds ?? [],
  };

  const billed = new BilledCalls();
  const admin = async (req: Request, url: URL): Promise<Response | undefined> => {
    if (url.pathname === "/_emulator/health" && req.method === "GET") return jsonResponse({ ok: true });
    const calls = billed.admin(req, url);
    if (calls) return calls;
    if (url.pathname === "/_emulator/reset" && req.method === "POST") {
      billed.clear();
      ctx.faults.clear();
      await tokens.clear();
      await clock.reset();
      await resetYouTube(ctx);
      resetAnalytics(ctx);
      await resetTikTok(ctx);
      await resetMeta(ctx);
      await resetStorage(ctx);
      fooledBookOf(ctx).replace([]);
      resetTelegram(ctx);
      return jsonResponse({ ok: true });
    }
    if (url.pathname === "/_emulator/faults") {
      if (req.method === "GET") return jsonResponse({ faults: ctx.faults.list() });
      if (req.method === "POST") {
        // A served answer may hold 64 Ki characters, each up to 6 bytes as a JSON escape.
        const body = await readAdminJson(req, 1024 * 1024);
        if (body instanceof Response) return body;
        const armed = ctx.faults.arm(body);
        return typeof armed === "string" ? jsonResponse({ error: armed }, 400) : jsonResponse({ armed });
      }
    }
    return undefined;
  };

  const server = Bun.serve<EdgeTtsSocketData, never>({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    idleTimeout: 120,
    maxRequestBodySize: 2 ** 31,
    async fetch(req, srv) {
      const started = performance.now();
      const url = new URL(req.url);
      let service = "emulator";
      let response: Response | undefined;
      let upgraded = false;
      try {
        if (url.pathname === EDGE_TTS_PATH) {
          service = "edge-tts";
          response = upgradeEdgeTts(req, url, srv, ctx);
          upgraded = response === undefined;
        } else {
          response = await admin(req, url);
          for (const [name, handle] of SERVICES) {
            if (response) break;
            response = await handle(req, url, ctx);
            if (response) service = name;
          }
        }
        if (!upgraded) {
          response ??= jsonResponse({ error: { code: 404, message: `no emulated route for ${req.method} ${url.pathname}`, status: "NOT_FOUND" } }, 404);
        }
      } catch (error) {
        ctx.log({ ts: new Date().toISOString(), service, level: "error", message: String((error as Error)?.stack ?? error) });
        response = jsonResponse({ error: { code: 500, message: "emulator internal error", status: "INTERNAL" } }, 500);
      }
      // An upgraded WebSocket has no Response: Bun answers 101 itself.
      const status = upgraded ? 101 : isDroppedConnection(response) ? "dropped" : response?.status;
      billed.note(req.method, url.pathname, service, status);
      ctx.log({
        ts: new Date().toISOString(),
        service,
        method: req.method,
        path: url.pathname,
        status,
        ms: Math.round(performance.now() - started),
      });
      return response;
    },
    websocket: edgeTtsWebSocket(ctx),
  });

  const url = `http://${server.hostname}:${server.port}`;
  return {
    url,
    port: server.port as number,
    async stop() {
      await server.stop(true);
    },
  };
}

if (import.meta.main) {
  const port = Number(process.env.EMULATOR_PORT ?? LOCAL_STACK.emulatorPort);
  const dataDir = process.env.EMULATOR_DATA_DIR ?? ".local/emulators";
  const maxBytes = process.env.EMULATOR_STORAGE_MAX_BYTES;
  if (maxBytes !== undefined && !/^[1-9]\d*$/.test(maxBytes)) {
    process.stderr.write(`emulator: EMULATOR_STORAGE_MAX_BYTES=${maxBytes} must be a positive whole number of bytes\n`);
    process.exit(1);
  }
  const youtubeLimits: Partial<YouTubeLimits> = {};
  for (
    const [name, key] of [
      ["EMULATOR_YOUTUBE_INSERT_CALLS_PER_DAY", "insertCallsPerDay"],
      ["EMULATOR_YOUTUBE_UNITS_PER_DAY", "unitsPerDay"],
      ["EMULATOR_YOUTUBE_STATS_UNITS_PER_DAY", "statsUnitsPerDay"],
      ["EMULATOR_YOUTUBE_CHANNEL_UPLOADS_PER_24H", "channelUploadsPer24h"],
    ] as const
  ) {
    const value = process.env[name];
    if (value === undefined || value === "") continue;
    if (!/^\d{1,9}$/.test(value)) {
      process.stderr.write(`emulator: ${name}=${value} must be a whole number 0..999999999\n`);
      process.exit(1);
    }
    youtubeLimits[key] = Number(value);
  }
  let googleOAuthClients: Record<string, string>;
  try {
    googleOAuthClients = parseClientList(process.env.EMULATOR_GOOGLE_OAUTH_CLIENTS);
  } catch (error) {
    process.stderr.write(`emulator: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const emulator = await startEmulator({
    port,
    hostname: process.env.EMULATOR_HOST ?? "127.0.0.1",
    dataDir,
    storageServiceKey: process.env.SUPABASE_SERVICE_ROLE_KEY || process.env.SERVICE_ROLE_KEY || undefined,
    storageMaxObjectBytes: maxBytes === undefined ? undefined : Number(maxBytes),
    youtubeLimits,
    // The stack starts the emulator with its own GEMINI_API_KEY: the key it "issued".
    geminiApiKey: process.env.GEMINI_API_KEY,
    pexelsApiKey: process.env.PEXELS_API_KEY,
    telegramBotToken: process.env.TELEGRAM_BOT_TOKEN,
    // The stack starts the emulator with its Meta app: the app it "registered".
    metaApp: process.env.META_APP_ID && process.env.META_APP_SECRET ? { appId: process.env.META_APP_ID, appSecret: process.env.META_APP_SECRET } : undefined,
    telegramChatIds: process.env.TELEGRAM_CHAT_ID ? [process.env.TELEGRAM_CHAT_ID] : [],
    googleOAuthClients,
  });
  process.stdout.write(
    `${JSON.stringify({ ts: new Date().toISOString(), service: "emulator", event: "listening", url: emulator.url, data_dir: path.resolve(dataDir) })}\n`,
  );
  const shutdown = async () => {
    await emulator.stop();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
