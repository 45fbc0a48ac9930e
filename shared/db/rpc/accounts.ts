/** Publishing account RPCs (the operator's `mdame account ...`); rows carry the sealed credentials, never opened here. */
import { z } from "zod";
import { Account, AccountHealth, Platform, RemovedAccount } from "../../contracts/account.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow, swapped } from "./query.ts";
import { DimensionId } from "../../contracts/dimension-id.ts";

/**
 * A row of mdame.dimension_accounts: the columns the API shows as they are (Account), with the
 * timestamps as Dates and what the API only summarizes (the sealed credentials, the health state).
 */
export const AccountRow = Account.pick({
  id: true,
  dimension_id: true,
  platform: true,
  channel_handle: true,
  active: true,
  channel_id: true,
  oauth_client_id: true,
  upload_cap_24h: true,
  health_reason: true,
}).extend({
  /** The refresh token sealed for this account's id (`v2.<kid>...`, shared/crypto/credentials.ts); null when none is stored. */
  credentials_enc: z.string().nullable(),
  created_at: z.date(),
  connected_at: z.date().nullable(),
  updated_at: z.date(),
  upload_cap_full_until: z.date().nullable(),
  health_state: AccountHealth,
  health_since: z.date().nullable(),
  /** The OAuth scopes the last connect's grant carried; null when connected before scopes were recorded. */
  granted_scopes: z.array(z.string()).nullable(),
}).strict();
export type AccountRow = z.infer<typeof AccountRow>;

/** Accounts by dimension, platform and channel; all of them, a dimension's, or the one with `id`. */
export function getAccounts(sql: Queryable, filter: { dimensionId?: string | null; id?: string | null } = {}): Promise<AccountRow[]> {
  return manyRows("get_accounts", AccountRow, sql`select * from mdame.get_accounts(${filter.dimensionId ?? null}::text, ${filter.id ?? null}::uuid)`);
}

/** One account, or null. */
export async function getAccount(sql: Queryable, id: string): Promise<AccountRow | null> {
  const [row] = await getAccounts(sql, { id });
  return row ?? null;
}

/** The account of (dimension, platform, channel), created on first connect; a reconnect keeps its id and whether it is paused. */
export function connectAccount(
  sql: Queryable,
  p: { dimensionId: string; platform: Platform; channelHandle: string; channelId: string | null; oauthClientId: string },
): Promise<AccountRow> {
  return oneRow(
    "connect_account",
    AccountRow,
    sql`
    select * from mdame.connect_account(${p.dimensionId}::text, ${p.platform}::text, ${p.channelHandle}::text, ${p.channelId}::text,
                                        ${p.oauthClientId}::text)`,
  );
}

/** Records the scopes the account's new grant carries (the token answer's `scope`, split). */
export function recordAccountScopes(sql: Queryable, id: string, scopes: readonly string[]): Promise<AccountRow> {
  return oneRow("record_account_scopes", AccountRow, sql`select * from mdame.record_account_scopes(${id}::uuid, ${sql.array(scopes as string[])}::text[])`);
}

/** Google refused the account's grant: it needs reconnecting (an event says so, with the fixing command). */
export function markAccountNeedsReconnect(sql: Queryable, id: string, reason: string): Promise<AccountRow> {
  return oneRow("mark_account_needs_reconnect", AccountRow, sql`select * from mdame.mark_account_needs_reconnect(${id}::uuid, ${reason}::text)`);
}

/** An upload YouTube made private when public was asked (its API project has not passed the audit). */
const LockedPublication = z.object({
  publication_id: z.string().uuid(),
  account_id: z.string().uuid(),
  dimension_id: DimensionId,
  channel_handle: z.string(),
  platform: Platform,
  external_id: z.string().nullable(),
  privacy_status: z.string(),
  published_at: z.date().nullable(),
}).strict();
type LockedPublication = z.infer<typeof LockedPublication>;

/** The newest uploads a platform made another privacy than the one asked (YouTube private, TikTok SELF_ONLY). */
export function listLockedPublications(sql: Queryable, limit = 20): Promise<LockedPublication[]> {
  return manyRows("list_locked_publications", LockedPublication, sql`select * from mdame.list_locked_publications(${limit}::integer)`);
}

/** Stores credentials sealed for this account's id (shared/crypto/credentials.ts), marking it connected and healthy. */
export function storeAccountCredentials(sql: Queryable, id: string, sealed: string): Promise<AccountRow> {
  return oneRow("store_account_credentials", AccountRow, sql`select * from mdame.store_account_credentials(${id}::uuid, ${sealed}::text)`);
}

/** Pauses (false) or resumes (true) an account. */
export function setAccountActive(sql: Queryable, id: string, active: boolean): Promise<AccountRow> {
  return oneRow("set_account_active", AccountRow, sql`select * from mdame.set_account_active(${id}::uuid, ${active}::boolean)`);
}

/** Deletes an account, or keeps one that has published as their record, paused and without credentials. */
export async function removeAccount(sql: Queryable, id: string): Promise<RemovedAccount> {
  const row = await oneRow("remove_account", z.object({ result: RemovedAccount }).strict(), sql`select mdame.remove_account(${id}::uuid) as result`);
  return row.result;
}

/**
 * Re-seals one account's credentials (key rotation) as a compare-and-swap: `resealed` is stored
 * only while the stored value is still `expected`. `swapped` is false when a connect (or another
 * rotation) changed them meanwhile; the row is then what is stored now.
 */
export function resealAccountCredentials(
  sql: Queryable,
  p: { id: string; expected: string; resealed: string },
): Promise<{ row: AccountRow; swapped: boolean }> {
  const query = sql`select * from mdame.reseal_account_credentials(${p.id}::uuid, ${p.expected}::text, ${p.resealed}::text)`;
  return swapped("reseal_account_credentials", AccountRow, query, (row) => row.credentials_enc === p.resealed);
}
