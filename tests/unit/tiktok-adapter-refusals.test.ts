/**
 * What the TikTok adapter tells the publish stage about TikTok's refusals: a rate limit (any 429,
 * documented code or not) defers `rate_limited`, a cap on the creator's posts `channel_cap`, a
 * refused grant asks for a reconnect, and anything else is left to the task's retries.
 */
import { expect, test } from "bun:test";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { tiktokAdapter } from "../../functions/pipeline/platforms/tiktok.ts";
import { TikTokApiError } from "../../shared/providers/tiktok/content-posting.ts";

const deps = {} as PipelineDeps;
const ticket = { accountId: "00000000-0000-4000-8000-000000000001" };
const refusal = (status: number, code: string) => tiktokAdapter.refusal(deps, ticket, new TikTokApiError(status, code, "", undefined, "init direct post"));

test("rate limits defer rate_limited, post caps channel_cap", async () => {
  expect(await refusal(429, "rate_limit_exceeded")).toMatchObject({ kind: "defer", reason: "rate_limited" });
  expect(await refusal(429, "too_many_requests")).toMatchObject({ kind: "defer", reason: "rate_limited" });
  expect(await refusal(403, "spam_risk_too_many_posts")).toMatchObject({ kind: "defer", reason: "channel_cap" });
  expect(await refusal(403, "reached_active_user_cap")).toMatchObject({ kind: "defer", reason: "channel_cap" });
});

test("a refused token asks for a reconnect; an outage is left to the retries", async () => {
  expect(await refusal(401, "access_token_invalid")).toMatchObject({ kind: "grant_refused" });
  expect(await refusal(503, "internal_error")).toBeNull();
});
