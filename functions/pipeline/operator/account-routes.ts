import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import { Account, AccountsQuery, ConnectAccountBody, type ConnectedAccount, RemovedAccount } from "../../../shared/contracts/account.ts";
import { encryptCredentials } from "../../../shared/crypto/credentials.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { NotFoundError, rpc } from "../../../shared/db/errors.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "../operator-routes.ts";
import { fromDb, iso, jsonBody } from "./request.ts";

const AccountId = z.string().uuid();

/** An account row as the API shows it: whether credentials are stored, never what they are. */
function toAccount(row: Record<string, unknown>): Account {
  return fromDb(Account, {
    id: row.id,
    dimension_id: row.dimension_id,
    platform: row.platform,
    channel_handle: row.channel_handle,
    channel_id: row.channel_id ?? null,
    active: row.active,
    has_credentials: row.credentials_enc != null,
    daily_quota_units: row.daily_quota_units,
    connected_at: iso(row.connected_at),
    created_at: iso(row.created_at),
  }, "mdame.dimension_accounts");
}

async function oneAccount(sql: Sql, id: string): Promise<Account> {
  const [row] = await sql`select * from mdame.get_accounts(null, ${id}::uuid)`;
  if (!row) throw new NotFoundError("MDN01", `no account ${id}`);
  return toAccount(row);
}

/**
 * Account routes of the operator API (`mdame account ...`), behind the service-role bearer.
 *
 * - `GET    /accounts[?dimension=id]`   accounts, by dimension then channel
 * - `POST   /accounts`                  connect: create or update the account of (dimension, platform,
 *   channel), seal the refresh token with CREDENTIALS_KEY for that account's id and store it, all in
 *   one transaction (mdame.connect_account + mdame.store_account_credentials)
 * - `POST   /accounts/:id/pause|resume` publishing skips a paused account (mdame.set_account_active)
 * - `DELETE /accounts/:id`              mdame.remove_account
 */
export function registerAccountRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/accounts", auth, async (c) => {
    const { dimension } = AccountsQuery.parse(c.req.query());
    const rows = await rpc(async () => {
      if (dimension !== undefined) {
        const [known] = await deps.sql`select 1 from mdame.get_dimensions(${dimension})`;
        if (!known) throw new NotFoundError("MDN01", `no dimension ${dimension}`);
      }
      return await deps.sql`
        select * from mdame.get_accounts(${dimension ?? null}::text)`;
    });
    return c.json({ accounts: rows.map(toAccount) });
  });

  app.post("/accounts", auth, async (c) => {
    const body = ConnectAccountBody.parse(await jsonBody(c.req.raw));
    const answer: ConnectedAccount = await rpc(() =>
      deps.sql.begin(async (tx) => {
        const [existing] = await tx`
          select id from mdame.get_accounts(${body.dimension_id})
           where platform = ${body.platform} and channel_handle = ${body.channel_handle}`;
        const [account] = await tx`
          select * from mdame.connect_account(${body.dimension_id}, ${body.platform}, ${body.channel_handle}, ${body.channel_id})`;
        // Sealed for this account's id (bound as additional data); a failure here rolls the whole
        // connect back, so no account is left without the credentials it was created for.
        const sealed = await encryptCredentials(deps.env.CREDENTIALS_KEY, { refresh_token: body.refresh_token }, account.id as string);
        const [stored] = await tx`select * from mdame.store_account_credentials(${account.id as string}::uuid, ${sealed})`;
        return { account: toAccount(stored), created: existing === undefined };
      })
    );
    deps.logger.info(
      { dimension: body.dimension_id, account_id: answer.account.id, platform: body.platform, channel: body.channel_handle, created: answer.created },
      "account connected by the operator",
    );
    return c.json(answer, answer.created ? 201 : 200);
  });

  for (const [action, active] of [["pause", false], ["resume", true]] as const) {
    app.post(`/accounts/:id/${action}`, auth, async (c) => {
      const id = AccountId.parse(c.req.param("id"));
      await rpc(() => deps.sql`select id from mdame.set_account_active(${id}::uuid, ${active})`);
      deps.logger.info({ account_id: id, active }, `account ${action}d by the operator`);
      return c.json(await oneAccount(deps.sql, id));
    });
  }

  app.delete("/accounts/:id", auth, async (c) => {
    const id = AccountId.parse(c.req.param("id"));
    const [row] = await rpc(() => deps.sql`select mdame.remove_account(${id}::uuid) as result`);
    const result = fromDb(RemovedAccount, row.result, "mdame.remove_account");
    deps.logger.info({ account_id: id, deleted: result.deleted, publications: result.publications }, "account removed by the operator");
    return c.json(result);
  });
}
