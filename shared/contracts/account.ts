import { z } from "zod";
import { timestamp } from "./columns.ts";
import { DimensionId } from "./dimension-id.ts";
import { oneLine } from "./text.ts";

/**
 * Publishing accounts through the operator API (functions/pipeline/operator/account-routes.ts):
 * `mdame account connect|list|pause|resume|remove`. A refresh token travels only inward, once, in
 * ConnectAccountBody; no answer ever carries a credential, only whether one is stored.
 */

export const Platform = z.enum(["youtube", "tiktok", "instagram", "facebook"]);
export type Platform = z.infer<typeof Platform>;

/** A channel handle as YouTube shows it (`@name`), or the channel's title when it has none. */
export const ChannelHandle = oneLine(
  z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters")
    .regex(/^[^\s<>"]+$/, "must be one word without spaces, quotes or angle brackets"),
);

/** ok, or needs_reconnect once Google refused the account's grant (a new connect clears it). */
export const AccountHealth = z.enum(["ok", "needs_reconnect"]);
export type AccountHealth = z.infer<typeof AccountHealth>;

/** An OAuth client id as Google issues them (`<digits>-<id>.apps.googleusercontent.com`, or an emulator's). */
export const OAuthClientId = oneLine(
  z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters")
    .regex(/^[A-Za-z0-9._-]+$/, "must be an OAuth client id (letters, digits, dots, dashes, underscores)"),
);

/** YouTube channel ids: `UC` + 22 characters. */
const ChannelId = z.string().regex(/^UC[A-Za-z0-9_-]{22}$/, "must be a YouTube channel id (UC + 22 characters)");

/** A TikTok user's open_id for the app: letters, digits, `.`, `_`, `-`, at most 128. */
const TikTokOpenId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, "must be a TikTok open_id (letters, digits, '.', '_' or '-', at most 128)");

/** A Meta object id (an Instagram professional account's IG user id, a Facebook Page id): digits. */
const MetaObjectId = z.string().regex(/^\d{1,30}$/, "must be a Meta object id (digits)");

/** The platforms whose account names the user or Page its grant is for, and the app the grant was made to. */
const NAMES_ITS_APP: readonly Platform[] = ["tiktok", "instagram", "facebook"];

/**
 * Body of POST /pipeline/accounts: the server seals the refresh token with CREDENTIALS_KEY before
 * storing it. A TikTok account names its creator (`channel_id`: the open_id the token answer gave)
 * and the app the grant was made to (`oauth_client_id`: the client key), both required: a refresh
 * token is of no use without the client key it was issued to. An Instagram or Facebook account
 * names its IG user id or Page id and the Meta app id, and its `refresh_token` is the long-lived
 * user token of Facebook Login for Business (Meta has no refresh token: the engine exchanges that
 * token for a fresh one before each post, shared/providers/meta/tokens.ts).
 */
export const ConnectAccountBody = z.object({
  dimension_id: DimensionId,
  platform: Platform,
  channel_handle: ChannelHandle,
  /** YouTube: the channel id (UC...); TikTok: the user's open_id; Instagram: the IG user id; Facebook: the Page id. */
  channel_id: z.string().max(128, "must be at most 128 characters").nullable().default(null),
  refresh_token: z.string().min(1, "must not be empty").max(2048, "must be at most 2048 characters"),
  /**
   * The OAuth client the refresh token was granted to: for YouTube the Google project whose quota
   * the account spends (absent, from an older CLI: the project `default`); for TikTok the client key;
   * for Instagram and Facebook the Meta app id.
   */
  oauth_client_id: OAuthClientId.optional(),
  /** YouTube: the scopes the grant carries (the token answer's `scope`, split); absent from an older CLI. */
  granted_scopes: z.array(z.string().regex(/^\S{1,200}$/, "must be one scope of at most 200 characters")).min(1).max(50).optional(),
}).strict().superRefine((body, ctx) => {
  if (NAMES_ITS_APP.includes(body.platform)) {
    const meta = body.platform !== "tiktok";
    if (body.channel_id === null) {
      const what = meta ? (body.platform === "instagram" ? "the Instagram account's IG user id" : "the Page id") : "the creator's open_id";
      ctx.addIssue({ code: "custom", path: ["channel_id"], message: `a ${body.platform} account needs ${what}` });
    }
    if (body.oauth_client_id === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["oauth_client_id"],
        message: `a ${body.platform} account needs the ${meta ? "Meta app id" : "client key"} its grant was made to`,
      });
    }
  }
  if (body.channel_id === null) return;
  const id = (body.platform === "youtube" ? ChannelId : body.platform === "tiktok" ? TikTokOpenId : MetaObjectId).safeParse(body.channel_id);
  if (!id.success) ctx.addIssue({ code: "custom", path: ["channel_id"], message: id.error.issues[0]!.message });
}).transform((body) => ({ ...body, oauth_client_id: body.oauth_client_id ?? "default" }));
export type ConnectAccountBody = z.infer<typeof ConnectAccountBody>;

/** An account as the API shows it. */
export const Account = z.object({
  id: z.string().uuid(),
  dimension_id: DimensionId,
  platform: Platform,
  channel_handle: z.string(),
  channel_id: z.string().nullable(),
  /** False once paused: publishing skips it. */
  active: z.boolean(),
  /** Whether sealed credentials are stored (never the credentials themselves). */
  has_credentials: z.boolean(),
  /** The OAuth client (Google project) the account was connected through: whose quota the account spends. */
  oauth_client_id: z.string(),
  /**
   * YouTube: the name of that Google project (`default`: the environment's client; null: a client
   * no project was registered for, see GET /pipeline/youtube-projects). TikTok: null.
   */
  youtube_project: z.string().nullable(),
  /** Uploads the channel may make in any 24 hours (lowered when YouTube answers uploadLimitExceeded). */
  upload_cap_24h: z.number().int(),
  health: AccountHealth,
  /** Why the account needs reconnecting, and since when; null while healthy. */
  health_reason: z.string().nullable(),
  health_since: timestamp.nullable(),
  connected_at: timestamp.nullable(),
  created_at: timestamp,
}).strict();
export type Account = z.infer<typeof Account>;

/** GET /pipeline/accounts[?dimension=id]. */
export const AccountList = z.object({ accounts: z.array(Account) }).strict();
export type AccountList = z.infer<typeof AccountList>;

export const AccountsQuery = z.object({ dimension: DimensionId.optional() }).strict();

/** Answer of POST /pipeline/accounts: the account, and whether this connect created it. */
export const ConnectedAccount = z.object({ account: Account, created: z.boolean() }).strict();
export type ConnectedAccount = z.infer<typeof ConnectedAccount>;

/**
 * Answer of DELETE /pipeline/accounts/:id (mdame.remove_account). An account with publications is
 * kept as their record, paused and without credentials (`deleted: false`).
 */
export const RemovedAccount = z.object({
  account_id: z.string().uuid(),
  deleted: z.boolean(),
  publications: z.number().int().nonnegative(),
}).strict();
export type RemovedAccount = z.infer<typeof RemovedAccount>;
