/**
 * Seals emulator credentials for the seeded accounts. seed.sql cannot do it: the encryption key lives
 * only in `.local/secrets.json`, never in the database.
 */
import type { Sql } from "postgres";
import { encryptCredentials } from "../../shared/crypto/credentials.ts";
import type { LocalSecrets } from "./secrets.ts";

export interface SeedCredentialsResult {
  /** Accounts that received credentials in this call. */
  sealed: number;
  /** Why nothing was done, when the schema has no place for credentials yet. */
  skipped?: string;
}

/**
 * For every `mdame.dimension_accounts` row without credentials, stores
 * `encryptCredentials(CREDENTIALS_KEY, { refresh_token: "emulator-refresh-<id>" }, id)`.
 * Rows that already have credentials are left alone, so calling it twice changes nothing.
 */
export async function seedLocalCredentials(sql: Sql, secrets: Pick<LocalSecrets, "CREDENTIALS_KEY">): Promise<SeedCredentialsResult> {
  const [column] = await sql<{ present: boolean }[]>`
    select exists (
      select 1 from information_schema.columns
      where table_schema = 'mdame' and table_name = 'dimension_accounts' and column_name = 'credentials_enc'
    ) as present`;
  if (!column?.present) {
    return { sealed: 0, skipped: "mdame.dimension_accounts.credentials_enc does not exist yet" };
  }
  const rows = await sql<{ id: string }[]>`
    select id::text as id from mdame.dimension_accounts where credentials_enc is null order by id`;
  let sealed = 0;
  for (const { id } of rows) {
    const enc = await encryptCredentials(secrets.CREDENTIALS_KEY, { refresh_token: `emulator-refresh-${id}` }, id);
    const updated = await sql`
      update mdame.dimension_accounts set credentials_enc = ${enc}
      where id = ${id} and credentials_enc is null`;
    sealed += updated.count;
  }
  return { sealed };
}
