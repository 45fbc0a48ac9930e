/**
 * The real Supabase Vault: the stack stores the wake-up secrets as a deployer does
 * (vault.create_secret, docs/guides/deploy.md), encrypted under the clone's own root key; without one,
 * the enqueue that would wake the stage runner fails with MDN01 naming the secret and the fix.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { missingExtensions, superuser } from "./fixtures.ts";

describe.skipIf(missingExtensions !== null)("Supabase Vault (the extension)", () => {
  const sql = superuser();
  const env = localStackEnv();

  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
  }, 120_000);

  afterAll(async () => {
    await sql.end({ timeout: 2 });
  });

  test("a reset stores the functions URL and the service key in Vault, readable only decrypted", async () => {
    const [extension] = await sql`select extversion from pg_extension where extname = 'supabase_vault'`;
    expect(extension).toBeDefined();
    const rows = await sql`select s.name, s.secret, d.decrypted_secret from vault.secrets s join vault.decrypted_secrets d using (id)
                           where s.name in ('mdame_functions_url', 'mdame_service_role_key') order by s.name`;
    expect(rows.map((r) => [r.name, r.decrypted_secret])).toEqual([
      ["mdame_functions_url", env.FUNCTIONS_URL],
      ["mdame_service_role_key", env.SERVICE_ROLE_KEY],
    ]);
    for (const row of rows) expect(row.secret).not.toContain(row.decrypted_secret);
  });

  for (const name of ["mdame_functions_url", "mdame_service_role_key"]) {
    test(`without ${name}, starting a run fails with MDN01 naming it and its vault.create_secret fix, and leaves nothing`, async () => {
      const key = `vault-missing-${name}-${Date.now()}`;
      const error = await sql.begin(async (tx) => {
        await tx`delete from vault.secrets where name = ${name}`;
        await tx`select mdame.start_run(${key}, 'dev', 'manual', current_date, 'tech-explained')`;
      }).then(() => null, (e: { code?: string; message: string; hint?: string }) => e);
      expect(error?.code).toBe("MDN01");
      expect(error?.message).toBe(`Vault secret ${name} is not set: the stage runner cannot be woken through pg_net`);
      expect(error?.hint).toMatch(new RegExp(`vault\\.create_secret\\(.*'${name}'\\)`));
      const [runs] = await sql`select count(*)::int as n from mdame.pipeline_runs where idempotency_key = ${key}`;
      expect(runs.n).toBe(0);
      const [kept] = await sql`select count(*)::int as n from vault.decrypted_secrets where name = ${name}`;
      expect(kept.n).toBe(1);
    });
  }
});
