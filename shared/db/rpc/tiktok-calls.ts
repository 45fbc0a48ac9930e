/**
 * TikTok's per-token rate windows (mdame.tiktok_rate_limits): a call takes its place before it is
 * made; a full window throws RateWindowFullError (MDQ04) with `notBefore`, when its oldest call
 * ages out.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { oneRow } from "./query.ts";

/** The calls the windows count. */
export const TikTokCallKind = z.enum(["video.init", "creator_info.query", "status.fetch", "video.query"]);
export type TikTokCallKind = z.infer<typeof TikTokCallKind>;

const TikTokCall = z.object({
  id: z.coerce.number().int(),
  account_id: z.string().uuid(),
  call_kind: TikTokCallKind,
  created_at: z.date(),
}).strict();
type TikTokCall = z.infer<typeof TikTokCall>;

export function reserveTikTokCall(sql: Queryable, accountId: string, callKind: TikTokCallKind): Promise<TikTokCall> {
  return oneRow("reserve_tiktok_call", TikTokCall, sql`select * from mdame.reserve_tiktok_call(${accountId}::uuid, ${callKind}::text)`);
}
