/**
 * Reddit through OAuth only (its unauthenticated JSON is closed): an application-only token from
 * `POST <auth>/api/v1/access_token` (HTTP Basic with the app's client id and secret,
 * `grant_type=client_credentials`), then `GET <api>/r/<subreddit>/hot?limit=<n>` with
 * `Authorization: bearer <token>`; the answer is a Listing of `t3` things. Traffic is the post's
 * score; stickied and NSFW posts are left out. The subreddit's name is the signal's category.
 */
import { z } from "zod";
import { ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";
import { requestJson } from "./http.ts";
import { type SourceClient, toSignal } from "./source.ts";

const PROVIDER = "reddit";
/** Reddit refuses generic user agents; this names the app as its API rules ask. */
const REDDIT_USER_AGENT = "server:md-ame:0.1 (trend ingest)";

const Token = z.object({ access_token: z.string().min(1), token_type: z.string(), expires_in: z.number().positive() }).passthrough();
const Listing = z.object({
  kind: z.literal("Listing"),
  data: z.object({
    children: z.array(
      z.object({
        kind: z.string(),
        data: z.object({
          title: z.string(),
          permalink: z.string(),
          url: z.string().optional(),
          created_utc: z.number(),
          score: z.number(),
          subreddit: z.string(),
          stickied: z.boolean().optional(),
          over_18: z.boolean().optional(),
          link_flair_text: z.string().nullable().optional(),
          selftext: z.string().optional(),
        }).passthrough(),
      }).passthrough(),
    ),
  }).passthrough(),
}).passthrough();

interface RedditOptions {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** `https://www.reddit.com` in production. */
  authBaseUrl: string;
  /** `https://oauth.reddit.com` in production. */
  apiBaseUrl: string;
}

export function redditSource(options: RedditOptions): SourceClient<"reddit"> {
  let cached: { token: string; expiresAt: number } | undefined;

  async function accessToken(now: number, signal?: AbortSignal): Promise<string> {
    if (cached && cached.expiresAt > now + 60_000) return cached.token;
    if (!options.clientId || !options.clientSecret) {
      throw new ProviderRejectedError(
        PROVIDER,
        'Reddit needs REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (an app of type "script" or "web" at reddit.com/prefs/apps)',
      );
    }
    const answer = Token.safeParse(
      await requestJson({
        provider: PROVIDER,
        url: new URL("/api/v1/access_token", options.authBaseUrl),
        init: {
          method: "POST",
          headers: {
            authorization: `Basic ${btoa(`${options.clientId}:${options.clientSecret}`)}`,
            "content-type": "application/x-www-form-urlencoded",
            "user-agent": REDDIT_USER_AGENT,
          },
          body: "grant_type=client_credentials",
        },
        signal,
      }),
    );
    if (!answer.success) throw new ProviderUnavailableError(PROVIDER, "the token endpoint answered without an access token");
    cached = { token: answer.data.access_token, expiresAt: now + answer.data.expires_in * 1000 };
    return cached.token;
  }

  return {
    kind: "reddit",
    async fetch(config, context) {
      const url = new URL(`/r/${config.subreddit}/hot`, options.apiBaseUrl);
      url.searchParams.set("limit", String(config.limit));
      url.searchParams.set("raw_json", "1");
      const listing = Listing.safeParse(
        await requestJson({
          provider: PROVIDER,
          url,
          init: { headers: { authorization: `bearer ${await accessToken(context.now, context.signal)}`, "user-agent": REDDIT_USER_AGENT } },
          signal: context.signal,
        }),
      );
      if (!listing.success) throw new ProviderUnavailableError(PROVIDER, `r/${config.subreddit}/hot is not a Listing`);
      return listing.data.data.children.flatMap(({ kind, data }) => {
        if (kind !== "t3" || data.stickied || data.over_18) return [];
        const signal = toSignal({
          source: "reddit",
          title: data.title,
          url: `https://www.reddit.com${data.permalink}`,
          published_at: new Date(data.created_utc * 1000).toISOString(),
          traffic: Math.max(0, data.score),
          categories: [data.subreddit, ...(data.link_flair_text ? [data.link_flair_text] : [])],
          context: data.selftext ? [data.selftext.slice(0, 200)] : [],
        }, context.now);
        return signal ? [signal] : [];
      }).slice(0, config.limit);
    },
  };
}
