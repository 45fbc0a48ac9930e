/**
 * Reddit's application-only OAuth and its listing API, as documented
 * (https://github.com/reddit-archive/reddit/wiki/OAuth2):
 *
 *   POST /api/v1/access_token   HTTP Basic <client id>:<secret>, body grant_type=client_credentials
 *                               -> {access_token, token_type: "bearer", expires_in: 86400, scope: "*"}
 *   GET  /r/<subreddit>/hot     Authorization: bearer <token>  -> a Listing of t3 things
 *
 * Any client id with a secret gets a token, except ids starting `revoked-` (401, as for a deleted
 * app). A listing without a token this emulator issued is 401. Listings come from
 * `fixtures/sources/reddit/<subreddit>.json`; an unknown subreddit is 404, `emulator_outage` 500.
 */
import { readFile } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";

const FIXTURES = new URL("../fixtures/sources/reddit/", import.meta.url);
const issued = new WeakMap<EmulatorContext, Set<string>>();

function tokensOf(ctx: EmulatorContext): Set<string> {
  let tokens = issued.get(ctx);
  if (!tokens) issued.set(ctx, tokens = new Set());
  return tokens;
}

async function accessToken(req: Request, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "POST") return new Response("Method Not Allowed", { status: 405 });
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.headers.get("authorization") ?? "");
  const [clientId, secret] = basic ? atob(basic[1]).split(":", 2) : [];
  if (!clientId || !secret || clientId.startsWith("revoked-")) return jsonResponse({ message: "Unauthorized", error: 401 }, 401);
  const form = new URLSearchParams(await req.text());
  if (form.get("grant_type") !== "client_credentials") return jsonResponse({ error: "unsupported_grant_type" }, 400);
  const token = `emulated-${crypto.randomUUID()}`;
  tokensOf(ctx).add(token);
  return jsonResponse({ access_token: token, token_type: "bearer", expires_in: 86400, scope: "*" });
}

async function hot(req: Request, url: URL, subreddit: string, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") return new Response("Method Not Allowed", { status: 405 });
  const bearer = /^bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!bearer || !tokensOf(ctx).has(bearer[1])) return jsonResponse({ message: "Unauthorized", error: 401 }, 401);
  if (subreddit === "emulator_outage") {
    return new Response("<html><body>all of our servers are busy</body></html>", { status: 500, headers: { "content-type": "text/html" } });
  }
  let text: string;
  try {
    text = await readFile(new URL(`${subreddit}.json`, FIXTURES), "utf8");
  } catch {
    return jsonResponse({ message: "Not Found", error: 404 }, 404);
  }
  const limit = Math.min(100, Math.max(1, Number(url.searchParams.get("limit") ?? "25") || 25));
  const now = Math.floor(Date.now() / 1000);
  const { posts } = JSON.parse(text) as { posts: (Record<string, unknown> & { id: string; age_minutes: number })[] };
  const children = posts.slice(0, limit).map(({ age_minutes: age, ...post }) => ({
    kind: "t3",
    data: {
      subreddit,
      stickied: false,
      over_18: false,
      link_flair_text: null,
      selftext: "",
      ...post,
      name: `t3_${post.id}`,
      permalink: `/r/${subreddit}/comments/${post.id}/`,
      url: `https://www.reddit.com/r/${subreddit}/comments/${post.id}/`,
      created_utc: now - age * 60,
    },
  }));
  return jsonResponse({ kind: "Listing", data: { after: null, before: null, dist: children.length, children } });
}

export async function handleReddit(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === "/api/v1/access_token") return await accessToken(req, ctx);
  const listing = /^\/r\/([A-Za-z0-9_]{2,21})\/hot$/.exec(url.pathname);
  if (listing) return await hot(req, url, listing[1], ctx);
  return undefined;
}
