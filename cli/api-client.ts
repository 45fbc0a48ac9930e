/**
 * The HTTP API mdame talks to (the `pipeline` Edge Function), and nothing else: the same calls
 * work against the local stack and a real Supabase project. Each call goes through Hono's typed
 * client over the routes' declarations (shared/api/routes), so a call the API does not declare, or
 * a parameter or body it would refuse, does not compile; every answer is parsed with the schema its
 * route declares for that status, and every failure becomes a CliError with its exit code.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { hc } from "hono/client";
import type { z } from "zod";
import { type AnswerSchema, declaredAnswer, type SuccessStatus } from "../shared/api/kit.ts";
import { type PipelineApi, pipelineRoutes as routes } from "../shared/api/routes/index.ts";
import type { ConnectAccountBody } from "../shared/contracts/account.ts";
import type { DimensionConfigInput, DimensionPatch } from "../shared/contracts/dimension.ts";
import type { TriggerRunBody } from "../shared/contracts/operator.ts";
import type { PriceReset, PriceSet } from "../shared/contracts/spend.ts";
import type { ApproveReviewBody } from "../shared/contracts/review.ts";
import type { ApiConfig } from "./config.ts";
import { apiError, CliError, EXIT, networkError } from "./errors.ts";

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** How long one call waits for the API's answer. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** What a route answers on success, as its declaration parses it. */
type Answer<R extends RouteConfig> = z.output<AnswerSchema<R, SuccessStatus<R>>>;

/** What `read` uses of a typed call's response. */
type Answered = Pick<Response, "ok" | "status" | "url" | "text">;

/**
 * The typed client of the API and `read`, which turns one of its calls into the parsed answer.
 * `shown` rewrites the parsed JSON first (the dashboard escapes the controls in every string with
 * it, as the CLI's output does).
 */
export function createApiTransport(config: ApiConfig, fetchImpl: Fetch = fetch, shown: (json: unknown) => unknown = (json) => json) {
  // The URL each answer came from, for messages (an answer built by a stub carries none of its own).
  const asked = new WeakMap<object, string>();
  const rpc = hc<PipelineApi>(config.baseUrl, {
    headers: { authorization: `Bearer ${config.serviceRoleKey}`, accept: "application/json" },
    fetch: async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      try {
        const url = String(input);
        const response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        asked.set(response, url);
        return response;
      } catch (error) {
        throw networkError(config.baseUrl, error);
      }
    },
  });

  async function read<R extends RouteConfig>(route: R, call: Promise<Answered>): Promise<Answer<R>> {
    const response = await call;
    const what = `${route.method.toUpperCase()} ${asked.get(response) ?? `${config.baseUrl}${route.path}`}`;
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw networkError(config.baseUrl, error);
    }
    let json: unknown = text;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page, say): kept as text for the message.
    }
    if (!response.ok) throw apiError(response.status, json, what);
    const schema = declaredAnswer(route, response.status);
    if (!schema) throw new CliError(`unexpected answer from ${what}: status ${response.status} is not one it declares`, EXIT.failure);
    const parsed = schema.safeParse(shown(json));
    if (!parsed.success) {
      throw new CliError(
        `unexpected answer from ${what}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`,
        EXIT.failure,
      );
    }
    return parsed.data as Answer<R>;
  }

  return { rpc, read };
}

/** The calls mdame makes, one line each over the typed client. */
export function createApiClient(config: ApiConfig, fetchImpl?: Fetch, shown?: (json: unknown) => unknown) {
  const { rpc, read } = createApiTransport(config, fetchImpl, shown);
  const api = rpc.pipeline;
  const optional = <K extends string>(key: K, value: string | null) => (value === null ? {} : { [key]: value }) as { [P in K]?: string };
  return {
    baseUrl: config.baseUrl,
    triggerRun: (body: TriggerRunBody) => read(routes.triggerRun, api.runs.$post({ json: body })),
    runStatus: (id: string) => read(routes.getRunStatus, api.runs[":id"].$get({ param: { id } })),
    /** The YouTube Analytics fetched for the run's published videos. */
    runAnalytics: (id: string) => read(routes.getRunAnalytics, api.runs[":id"].analytics.$get({ param: { id } })),
    listRuns: (limit: number) => read(routes.listRuns, api.runs.$get({ query: { limit } })),
    listDeadLetters: (limit: number) => read(routes.listDeadLetters, api["dead-letters"].$get({ query: { limit } })),
    listAlerts: (limit: number) => read(routes.listAlerts, api.alerts.$get({ query: { limit } })),
    retryDeadLetter: (id: string) => read(routes.retryDeadLetter, api["dead-letters"][":id"].retry.$post({ param: { id } })),
    abortRun: (id: string, reason: string | null) =>
      read(routes.abortRun, api.runs[":id"].abort.$post({ param: { id }, json: reason === null ? {} : { reason } })),
    listDimensions: () => read(routes.listDimensions, api.dimensions.$get()),
    showDimension: (id: string) => read(routes.getDimension, api.dimensions[":id"].$get({ param: { id } })),
    addDimension: (config: DimensionConfigInput) => read(routes.createDimension, api.dimensions.$post({ json: config })),
    setDimension: (id: string, patch: DimensionPatch) => read(routes.updateDimension, api.dimensions[":id"].$patch({ param: { id }, json: patch })),
    setDimensionActive: (id: string, active: boolean) =>
      active
        ? read(routes.resumeDimension, api.dimensions[":id"].resume.$post({ param: { id } }))
        : read(routes.pauseDimension, api.dimensions[":id"].pause.$post({ param: { id } })),
    listAccounts: (dimension: string | null) => read(routes.listAccounts, api.accounts.$get({ query: optional("dimension", dimension) })),
    /** Carries a refresh token: the one call that sends a credential, once, to be sealed server-side. */
    connectAccount: (body: ConnectAccountBody) => read(routes.connectAccount, api.accounts.$post({ json: body })),
    setAccountActive: (id: string, active: boolean) =>
      active
        ? read(routes.resumeAccount, api.accounts[":id"].resume.$post({ param: { id } }))
        : read(routes.pauseAccount, api.accounts[":id"].pause.$post({ param: { id } })),
    removeAccount: (id: string) => read(routes.removeAccount, api.accounts[":id"].$delete({ param: { id } })),
    listYouTubeProjects: () => read(routes.listYouTubeProjects, api["youtube-projects"].$get()),
    /** Carries a client secret, once, to be sealed server-side. */
    registerYouTubeProject: (body: Parameters<typeof api["youtube-projects"]["$post"]>[0]["json"]) =>
      read(routes.registerYouTubeProject, api["youtube-projects"].$post({ json: body })),
    removeYouTubeProject: (name: string) => read(routes.removeYouTubeProject, api["youtube-projects"][":name"].$delete({ param: { name } })),
    /** The client id and secret of a registered project, for the connect's OAuth flow. */
    youtubeProjectClient: (name: string) => read(routes.getYouTubeProjectClient, api["youtube-projects"][":name"].client.$get({ param: { name } })),
    /** One batch of key rotation: re-seals the next accounts' credentials with the functions' current key. */
    rotateCredentials: (body: Parameters<typeof api.credentials.rotate.$post>[0]["json"]) =>
      read(routes.rotateCredentials, api.credentials.rotate.$post({ json: body })),
    credentialKeys: () => read(routes.credentialKeys, api.credentials.keys.$get()),
    /** The weekly report of the week holding `week` (YYYY-MM-DD), every active dimension's or one's. */
    weeklyReports: (week: string, dimension: string | null) =>
      read(routes.weeklyReports, api.reports.weekly.$get({ query: { week, ...optional("dimension", dimension) } })),
    /** The adaptive engine (docs/reference/adaptive.md). */
    adapt: (body: { dimension?: string; dry_run: boolean }) => read(routes.adapt, api.adapt.$post({ json: body })),
    listAdaptations: (dimension: string | null, limit: number) =>
      read(routes.listAdaptations, api.adaptations.$get({ query: { limit, ...optional("dimension", dimension) } })),
    revertAdaptation: (id: string) => read(routes.revertAdaptation, api.adaptations[":id"].revert.$post({ param: { id } })),
    setAdaptationPin: (dimension: string, parameter: string, pinned: boolean) =>
      pinned
        ? read(routes.pinAdaptParameter, api.adapt.pin.$post({ json: { dimension, parameter } }))
        : read(routes.unpinAdaptParameter, api.adapt.unpin.$post({ json: { dimension, parameter } })),
    /** Review before publish (docs/guides/review.md): the units waiting, one review, and the two decisions. */
    listReviews: (dimension: string | null) => read(routes.listReviews, api.reviews.$get({ query: optional("dimension", dimension) })),
    getReview: (unitId: string) => read(routes.getReview, api.reviews[":unit_id"].$get({ param: { unit_id: unitId } })),
    approveReview: (unitId: string, edits: ApproveReviewBody) =>
      read(routes.approveReview, api.reviews[":unit_id"].approve.$post({ param: { unit_id: unitId }, json: edits })),
    rejectReview: (unitId: string, reason: string) =>
      read(routes.rejectReview, api.reviews[":unit_id"].reject.$post({ param: { unit_id: unitId }, json: { reason } })),
    /** Retention and housekeeping (docs/reference/retention.md). */
    storageUsage: (tables: number) => read(routes.storageUsage, api.storage.usage.$get({ query: { tables } })),
    housekeeping: (dryRun: boolean) => read(routes.runHousekeeping, api.housekeeping.$post({ json: { dry_run: dryRun } })),
    housekeepingSettings: () => read(routes.housekeepingSettings, api.housekeeping.settings.$get()),
    setHousekeepingSettings: (changes: Record<string, number | null>) =>
      read(routes.setHousekeepingSettings, api.housekeeping.settings.$patch({ json: changes })),
    /** Spend, prices and budgets (docs/reference/spend.md). */
    spend: (filter: { dimension: string | null; month: string | null }) =>
      read(routes.getSpend, api.spend.$get({ query: { ...optional("dimension", filter.dimension), ...optional("month", filter.month) } })),
    listPrices: () => read(routes.listPrices, api.prices.$get()),
    setPrice: (price: PriceSet) => read(routes.setPrice, api.prices.$put({ json: price })),
    resetPrice: (price: PriceReset) => read(routes.resetPrice, api.prices.reset.$post({ json: price })),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
