import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { Account } from "../../../shared/contracts/account.ts";
import { encryptCredentials } from "../../../shared/crypto/credentials.ts";
import type { Queryable } from "../../../shared/db/client.ts";
import { NotFoundError, WrongStateError } from "../../../shared/db/errors.ts";
import {
  type AccountRow,
  connectAccount,
  getAccount,
  getAccounts,
  recordAccountScopes,
  removeAccount,
  setAccountActive,
  storeAccountCredentials,
} from "../../../shared/db/rpc/accounts.ts";
import { getDimension } from "../../../shared/db/rpc/dimensions.ts";
import { getYouTubeProjects } from "../../../shared/db/rpc/youtube-projects.ts";
import { isEnvironmentClient, projectName } from "../../../shared/contracts/youtube-project.ts";
import { answer } from "../../../shared/http/answer.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

/** Each YouTube project's name by client id, for showing the project of each account. */
type ProjectNames = ReadonlyMap<string, string | null>;

async function projectNames(deps: OperatorDeps, sql: Queryable = deps.sql): Promise<ProjectNames> {
  return new Map((await getYouTubeProjects(sql)).map((p) => [p.oauth_client_id, projectName(p, deps.env)]));
}

/** An account as the API shows it: whether credentials are stored, never what they are. */
function toAccount(row: AccountRow, projects: ProjectNames): Account {
  return answer(Account, {
    id: row.id,
    dimension_id: row.dimension_id,
    platform: row.platform,
    channel_handle: row.channel_handle,
    channel_id: row.channel_id,
    active: row.active,
    has_credentials: row.credentials_enc !== null,
    oauth_client_id: row.oauth_client_id,
    youtube_project: row.platform === "youtube" ? projects.get(row.oauth_client_id) ?? null : null,
    upload_cap_24h: row.upload_cap_24h,
    health: row.health_state,
    health_reason: row.health_state === "ok" ? null : row.health_reason,
    health_since: row.health_state === "ok" ? null : row.health_since?.toISOString() ?? null,
    connected_at: row.connected_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  }, "mdame.dimension_accounts");
}

async function oneAccount(deps: OperatorDeps, id: string): Promise<Account> {
  const row = await getAccount(deps.sql, id);
  if (!row) throw new NotFoundError("MDN01", `no account ${id}`);
  return toAccount(row, await projectNames(deps));
}

/** How `mdame account connect` names an account already connected (account.ts's reconnectCommand says the same). */
function reconnectFlag(a: AccountRow): string {
  if (a.platform === "facebook") return `--page ${a.channel_id ?? a.channel_handle}`;
  if (a.platform === "instagram") return `--page ${a.channel_handle}`;
  return `--channel ${a.channel_handle}`;
}

/**
 * Account routes of the operator API (`mdame account ...`), declared in shared/api/routes/accounts.ts
 * behind the service-role bearer.
 *
 * - `GET    /accounts[?dimension=id]`   accounts, by dimension then channel
 * - `POST   /accounts`                  connect: create or update the account of (dimension, platform,
 *   channel), seal the refresh token with CREDENTIALS_KEY for that account's id and store it, all in
 *   one transaction (mdame.connect_account + mdame.store_account_credentials); a TikTok body needs
 *   the open_id and the client key (400 otherwise), and a TikTok creator already connected to the
 *   dimension under another handle is 409; a YouTube body names the environment's client or a
 *   registered project's (404 otherwise: the engine could not refresh the token)
 * - `POST   /accounts/:id/pause|resume` publishing skips a paused account (mdame.set_account_active)
 * - `DELETE /accounts/:id`              mdame.remove_account
 */
export function accountHandlers(
  deps: OperatorDeps,
): Handlers<"listAccounts" | "connectAccount" | "pauseAccount" | "resumeAccount" | "removeAccount"> {
  /** Publishing skips the account (pause) or uses it again (resume); the account afterwards. */
  const setActive = async (id: string, action: "pause" | "resume", active: boolean): Promise<Account> => {
    await setAccountActive(deps.sql, id, active);
    deps.logger.info({ account_id: id, active, status: "succeeded" }, `account ${action}d by the operator`);
    return await oneAccount(deps, id);
  };
  return {
    listAccounts: async (c) => {
      const { dimension } = c.req.valid("query");
      if (dimension !== undefined && (await getDimension(deps.sql, dimension)) === null) {
        throw new NotFoundError("MDN01", `no dimension ${dimension}`);
      }
      const rows = await getAccounts(deps.sql, { dimensionId: dimension });
      const projects = await projectNames(deps);
      return reply(c, routes.listAccounts, 200, { accounts: rows.map((row) => toAccount(row, projects)) });
    },

    connectAccount: async (c) => {
      const body = c.req.valid("json");
      // A YouTube refresh token refreshes only with the client that granted it: the engine must hold
      // that client's secret (the environment's, or a registered project's) before the account exists.
      if (body.platform === "youtube" && !isEnvironmentClient(body.oauth_client_id, deps.env)) {
        const known = (await getYouTubeProjects(deps.sql)).some((p) => p.oauth_client_id === body.oauth_client_id && p.name !== null);
        if (!known) {
          throw new NotFoundError(
            "MDN01",
            `no YouTube project has the OAuth client ${body.oauth_client_id}: register it first (mdame youtube-project add --name <name> --client-id ${body.oauth_client_id}), or connect through the environment's client`,
          );
        }
      }
      const connected = await deps.sql.begin(async (tx) => {
        const accounts = (await getAccounts(tx, { dimensionId: body.dimension_id })).filter((a) => a.platform === body.platform);
        const existing = accounts.some((a) => a.channel_handle === body.channel_handle);
        // A TikTok creator is its open_id, an Instagram account its IG user id, a Page its id:
        // connecting one again under another handle would make a second account publishing for it.
        // The handle it has is the one to reconnect with.
        const sameCreator = body.platform !== "youtube" && !existing && accounts.find((a) => a.channel_id === body.channel_id);
        if (sameCreator) {
          throw new WrongStateError(
            "MDS01",
            `this ${body.platform} account (${
              body.platform === "tiktok" ? "open_id" : "id"
            } ${body.channel_id}) is already connected to dimension ${body.dimension_id} as ${sameCreator.channel_handle}: reconnect it with ${
              reconnectFlag(sameCreator)
            }, or remove account ${sameCreator.id} first`,
          );
        }
        const account = await connectAccount(tx, {
          dimensionId: body.dimension_id,
          platform: body.platform,
          channelHandle: body.channel_handle,
          channelId: body.channel_id,
          oauthClientId: body.oauth_client_id,
        });
        // Sealed for this account's id (bound as additional data); a failure here rolls the whole
        // connect back, so no account is left without the credentials it was created for.
        const sealed = await encryptCredentials(deps.credentialKeys, { refresh_token: body.refresh_token }, account.id);
        const stored = await storeAccountCredentials(tx, account.id, sealed);
        if (body.granted_scopes) await recordAccountScopes(tx, account.id, body.granted_scopes);
        return { account: toAccount(stored, await projectNames(deps, tx)), created: !existing };
      });
      deps.logger.info(
        {
          dimension_id: body.dimension_id,
          account_id: connected.account.id,
          platform: body.platform,
          channel: body.channel_handle,
          created: connected.created,
          status: "succeeded",
        },
        "account connected by the operator",
      );
      return reply(c, routes.connectAccount, connected.created ? 201 : 200, connected);
    },

    pauseAccount: async (c) => {
      const { id } = c.req.valid("param");
      return reply(c, routes.pauseAccount, 200, await setActive(id, "pause", false));
    },

    resumeAccount: async (c) => {
      const { id } = c.req.valid("param");
      return reply(c, routes.resumeAccount, 200, await setActive(id, "resume", true));
    },

    removeAccount: async (c) => {
      const { id } = c.req.valid("param");
      const result = await removeAccount(deps.sql, id);
      deps.logger.info({ account_id: id, deleted: result.deleted, publications: result.publications, status: "succeeded" }, "account removed by the operator");
      return reply(c, routes.removeAccount, 200, result);
    },
  };
}
