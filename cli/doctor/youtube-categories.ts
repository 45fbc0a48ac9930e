/**
 * Each active dimension's YouTube category must be one its channel may give a video: asked with
 * `videoCategories.list` (`part=snippet`, `regionCode`=the channel's country, or DEFAULT_REGION_CODE
 * when the channel names none; YouTube takes exactly one filter, and only the region's list says
 * what may be assigned there, so the category is looked up in it) through the googleapis youtube client, as the
 * channel's own account (its refresh token, opened with CREDENTIALS_KEY). A category that does not
 * exist or is not `assignable` fails with the `mdame dimension set` that changes it. Costs 2 units
 * of the channel's daily quota per dimension (channels.list and videoCategories.list).
 */
import { youtube } from "@googleapis/youtube";
import { OAuth2Client } from "google-auth-library";
import type postgres from "postgres";
import { z } from "zod";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { type CredentialKeyRing, credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { getAccounts } from "../../shared/db/rpc/accounts.ts";
import { getDimensions } from "../../shared/db/rpc/dimensions.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { youtubeClientFor } from "../../shared/providers/youtube/account-client.ts";
import { type CheckResult, describeError, fail, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";

const FAMILY = "providers";

/** The region asked about when the channel does not name its country (YouTube's categories differ little by region). */
export const DEFAULT_REGION_CODE = "US";

/** What videoCategories.list answers (`youtube#videoCategoryListResponse`), the fields this check reads. */
const VideoCategoryListResponse = z.looseObject({
  items: z.array(z.looseObject({
    id: z.string(),
    snippet: z.looseObject({ title: z.string().optional(), assignable: z.boolean().optional() }).optional(),
  })).default([]),
});

interface CategoryQuestion {
  dimension: string;
  categoryId: string;
  regionCode: string;
}

const checkName = (dimension: string) => `category ${dimension}`;
const fixFor = (dimension: string) =>
  `pick an assignable category (GET videoCategories?part=snippet&regionCode=<country> lists them; 27 is Education): mdame dimension set ${dimension} --category <id>`;

/** The verdict on videoCategories.list's answer for one dimension's category. Pure, for tests. */
export function categoryVerdict(question: CategoryQuestion, answer: unknown): CheckResult {
  const { dimension, categoryId, regionCode } = question;
  const parsed = VideoCategoryListResponse.safeParse(answer);
  if (!parsed.success) {
    return warn(
      FAMILY,
      checkName(dimension),
      `videoCategories.list gave an answer without items; category ${categoryId} is unconfirmed`,
      "see the youtube line",
    );
  }
  const category = parsed.data.items.find((item) => item.id === categoryId);
  if (!category) {
    return fail(FAMILY, checkName(dimension), `category ${categoryId} does not exist in region ${regionCode}: uploads would be refused`, fixFor(dimension));
  }
  const title = category.snippet?.title ? ` (${category.snippet.title})` : "";
  if (category.snippet?.assignable !== true) {
    return fail(FAMILY, checkName(dimension), `category ${categoryId}${title} cannot be assigned to videos in region ${regionCode}`, fixFor(dimension));
  }
  return ok(FAMILY, checkName(dimension), `category ${categoryId}${title} is assignable in region ${regionCode}`);
}

/** The googleapis youtube client at `apiBaseUrl`, acting with `accessToken`. */
function client(apiBaseUrl: string, accessToken: string) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: accessToken });
  return youtube({ version: "v3", auth, rootUrl: `${apiBaseUrl.replace(/\/+$/, "")}/` });
}

/** The signed-in channel's country (snippet.country), or null when it names none. */
export async function channelCountry(apiBaseUrl: string, accessToken: string, signal?: AbortSignal): Promise<string | null> {
  const answer = await client(apiBaseUrl, accessToken).channels.list({ part: ["snippet"], mine: true }, { signal });
  const country = answer.data.items?.[0]?.snippet?.country;
  return typeof country === "string" && /^[A-Z]{2}$/.test(country) ? country : null;
}

/** videoCategories.list of the categories of one region: the raw answer, for categoryVerdict. */
export async function listVideoCategory(
  apiBaseUrl: string,
  accessToken: string,
  question: Omit<CategoryQuestion, "dimension">,
  signal?: AbortSignal,
): Promise<unknown> {
  const answer = await client(apiBaseUrl, accessToken).videoCategories.list(
    { part: ["snippet"], regionCode: question.regionCode },
    { signal },
  );
  return answer.data;
}

/** What a failed Google call says: its HTTP status and Google's error message, nothing of the request. */
function googleFailure(error: unknown): string {
  const failure = error as { status?: number; response?: { status?: number; data?: { error?: { message?: unknown } } } };
  const status = failure.response?.status ?? failure.status;
  const message = failure.response?.data?.error?.message;
  if (status) return `HTTP ${status}${typeof message === "string" ? `: ${message}` : ""}`;
  return describeError(error);
}

/**
 * One line per active dimension with an active account whose credentials open: the category
 * verdict, asked as that account. Dimensions without one are left to the database/dimension line.
 */
export async function checkCategories(
  sql: postgres.Sql,
  config: DoctorConfig,
  step: <T>(work: () => Promise<T>) => Promise<T>,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const env = config.env;
  if (!env.CREDENTIALS_KEY) return [];
  const [dimensions, accounts] = await step(async () =>
    [
      (await getDimensions(sql)).filter((d) => d.active),
      (await getAccounts(sql)).filter((a) => a.active && a.platform === "youtube" && a.credentials_enc),
    ] as const
  );
  const apiBaseUrl = env.YOUTUBE_API_BASE_URL || "https://youtube.googleapis.com";
  // Built once, when an account first needs it; a ring that does not parse fails that account's
  // sign-in, which the database/dimension line explains.
  let keys: CredentialKeyRing | null = null;
  const ring = () => keys ??= credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY!, CREDENTIALS_KEYS_PREVIOUS: env.CREDENTIALS_KEYS_PREVIOUS });
  const tokenUrl = env.GOOGLE_OAUTH_TOKEN_URL || "https://oauth2.googleapis.com/token";
  const checks = dimensions.map(async (dimension): Promise<CheckResult | null> => {
    const account = accounts.find((a) => a.dimension_id === dimension.id);
    if (!account) return null;
    const question = { dimension: dimension.id, categoryId: dimension.publishing.category_id, regionCode: DEFAULT_REGION_CODE };
    let accessToken: string;
    try {
      const { refresh_token } = await decryptCredentials(ring(), account.credentials_enc!, account.id);
      // Signed in with the client of the account's Google project, the one that granted its token.
      const client = await step(() => youtubeClientFor(sql, ring(), env, account.id));
      if (client === null) return null;
      accessToken = await withTimeout(timeoutMs, () => createYouTubeAccessTokenSource({ ...client, tokenUrl, refreshToken: refresh_token }).getAccessToken());
    } catch {
      // Why the account cannot act is the database/dimension line's to say.
      return warn(
        FAMILY,
        checkName(dimension.id),
        `category ${question.categoryId} is unconfirmed: account ${account.channel_handle} cannot sign in`,
        "see the database/dimension line",
      );
    }
    try {
      const answer = await withTimeout(timeoutMs, async (signal) => {
        question.regionCode = (await channelCountry(apiBaseUrl, accessToken, signal)) ?? DEFAULT_REGION_CODE;
        return listVideoCategory(apiBaseUrl, accessToken, question, signal);
      });
      return categoryVerdict(question, answer);
    } catch (error) {
      return warn(
        FAMILY,
        checkName(dimension.id),
        `category ${question.categoryId} is unconfirmed: videoCategories.list at ${apiBaseUrl} failed (${googleFailure(error)})`,
        "check YOUTUBE_API_BASE_URL (unset in production: https://youtube.googleapis.com)",
      );
    }
  });
  return (await Promise.all(checks)).filter((c): c is CheckResult => c !== null);
}
