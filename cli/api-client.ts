/**
 * The HTTP API mdame talks to (the `pipeline` Edge Function), and nothing else: the same calls
 * work against the local stack and a real Supabase project. Every answer is read through its
 * contract; every failure becomes a CliError with its exit code.
 */
import { AlertList } from "../shared/contracts/alerts.ts";
import type { z } from "zod";
import { AbortedRun, DeadLetterList, DeadLetterRetry, RunList, RunStatus, TriggeredRun, type TriggerRunBody } from "../shared/contracts/operator.ts";
import { RunAnalyticsList } from "../shared/contracts/analytics.ts";
import { Account, AccountList, type ConnectAccountBody, ConnectedAccount, RemovedAccount } from "../shared/contracts/account.ts";
import { CredentialKeysCensus, CredentialsRotationBatch, type RotateCredentialsBody } from "../shared/contracts/credentials.ts";
import { Dimension, type DimensionConfigInput, DimensionList, type DimensionPatch } from "../shared/contracts/dimension.ts";
import { WeeklyReportList } from "../shared/contracts/weekly-report.ts";
import {
  type RegisterYouTubeProjectBody,
  RemovedYouTubeProject,
  YouTubeProject,
  YouTubeProjectClient,
  YouTubeProjectList,
} from "../shared/contracts/youtube-project.ts";
import { AdaptAnswer, Adaptation, AdaptationList, AdaptPins } from "../shared/contracts/adapt.ts";
import { HousekeepingAnswer, HousekeepingSettings, StorageUsage } from "../shared/contracts/housekeeping.ts";
import type { ApiConfig } from "./config.ts";
import { apiError, CliError, EXIT, networkError } from "./errors.ts";

export interface ApiClient {
  readonly baseUrl: string;
  triggerRun(body: TriggerRunBody): Promise<TriggeredRun>;
  runStatus(runId: string): Promise<RunStatus>;
  /** The YouTube Analytics fetched for the run's published videos. */
  runAnalytics(runId: string): Promise<RunAnalyticsList>;
  listRuns(limit: number): Promise<RunList>;
  listDeadLetters(limit: number): Promise<DeadLetterList>;
  listAlerts(limit: number): Promise<AlertList>;
  retryDeadLetter(id: string): Promise<DeadLetterRetry>;
  abortRun(runId: string, reason: string | null): Promise<AbortedRun>;
  listDimensions(): Promise<DimensionList>;
  showDimension(id: string): Promise<Dimension>;
  addDimension(config: DimensionConfigInput): Promise<Dimension>;
  setDimension(id: string, patch: DimensionPatch): Promise<Dimension>;
  setDimensionActive(id: string, active: boolean): Promise<Dimension>;
  listAccounts(dimension: string | null): Promise<AccountList>;
  /** Carries a refresh token: the one call that sends a credential, once, to be sealed server-side. */
  connectAccount(body: Omit<ConnectAccountBody, "channel_id"> & { channel_id: string | null }): Promise<ConnectedAccount>;
  setAccountActive(id: string, active: boolean): Promise<Account>;
  removeAccount(id: string): Promise<RemovedAccount>;
  listYouTubeProjects(): Promise<YouTubeProjectList>;
  /** Carries a client secret, once, to be sealed server-side. */
  registerYouTubeProject(body: RegisterYouTubeProjectBody): Promise<YouTubeProject>;
  removeYouTubeProject(name: string): Promise<RemovedYouTubeProject>;
  /** The client id and secret of a registered project, for the connect's OAuth flow. */
  youtubeProjectClient(name: string): Promise<YouTubeProjectClient>;
  /** One batch of key rotation: re-seals the next accounts' credentials with the functions' current key. */
  rotateCredentials(body: RotateCredentialsBody): Promise<CredentialsRotationBatch>;
  credentialKeys(): Promise<CredentialKeysCensus>;
  /** The weekly report of the week holding `week` (YYYY-MM-DD), every active dimension's or one's. */
  weeklyReports(week: string, dimension: string | null): Promise<WeeklyReportList>;
  /** The adaptive engine (docs/reference/adaptive.md). */
  adapt(body: { dimension?: string; dry_run: boolean }): Promise<AdaptAnswer>;
  listAdaptations(dimension: string | null, limit: number): Promise<AdaptationList>;
  revertAdaptation(id: string): Promise<Adaptation>;
  setAdaptationPin(dimension: string, parameter: string, pinned: boolean): Promise<AdaptPins>;
  /** Retention and housekeeping (docs/reference/retention.md). */
  storageUsage(tables: number): Promise<StorageUsage>;
  housekeeping(dryRun: boolean): Promise<HousekeepingAnswer>;
  housekeepingSettings(): Promise<HousekeepingSettings>;
  setHousekeepingSettings(changes: Record<string, number | null>): Promise<HousekeepingSettings>;
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

const REQUEST_TIMEOUT_MS = 60_000;

/** One call of the API, its answer parsed with `schema`; every failure a CliError. */
type ApiCall = <T extends z.ZodType>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, schema: T, body?: unknown) => Promise<z.infer<T>>;

/**
 * One call of the API: the answer parsed with its contract. `shown` rewrites the parsed JSON first
 * (the dashboard escapes the controls in every string with it, as the CLI's output does).
 */
export function createApiCall(config: ApiConfig, fetchImpl: Fetch = fetch, shown: (json: unknown) => unknown = (json) => json): ApiCall {
  return async function call<T extends z.ZodType>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, schema: T, body?: unknown): Promise<z.infer<T>> {
    const url = `${config.baseUrl}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        method,
        headers: {
          authorization: `Bearer ${config.serviceRoleKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
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
    if (!response.ok) throw apiError(response.status, json, `${method} ${url}`);
    const parsed = schema.safeParse(shown(json));
    if (!parsed.success) {
      throw new CliError(
        `unexpected answer from ${method} ${url}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`,
        EXIT.failure,
      );
    }
    return parsed.data;
  };
}

export function createApiClient(config: ApiConfig, fetchImpl: Fetch = fetch, shown?: (json: unknown) => unknown): ApiClient {
  const call = createApiCall(config, fetchImpl, shown);
  const id = encodeURIComponent;
  return {
    baseUrl: config.baseUrl,
    triggerRun: (body) => call("POST", "/pipeline/runs", TriggeredRun, body),
    runStatus: (runId) => call("GET", `/pipeline/runs/${id(runId)}`, RunStatus),
    runAnalytics: (runId) => call("GET", `/pipeline/runs/${id(runId)}/analytics`, RunAnalyticsList),
    listRuns: (limit) => call("GET", `/pipeline/runs?limit=${limit}`, RunList),
    listDeadLetters: (limit) => call("GET", `/pipeline/dead-letters?limit=${limit}`, DeadLetterList),
    listAlerts: (limit) => call("GET", `/pipeline/alerts?limit=${limit}`, AlertList),
    retryDeadLetter: (deadLetterId) => call("POST", `/pipeline/dead-letters/${id(deadLetterId)}/retry`, DeadLetterRetry, {}),
    abortRun: (runId, reason) => call("POST", `/pipeline/runs/${id(runId)}/abort`, AbortedRun, reason === null ? {} : { reason }),
    listDimensions: () => call("GET", "/pipeline/dimensions", DimensionList),
    showDimension: (dimension) => call("GET", `/pipeline/dimensions/${id(dimension)}`, Dimension),
    addDimension: (config) => call("POST", "/pipeline/dimensions", Dimension, config),
    setDimension: (dimension, patch) => call("PATCH", `/pipeline/dimensions/${id(dimension)}`, Dimension, patch),
    setDimensionActive: (dimension, active) => call("POST", `/pipeline/dimensions/${id(dimension)}/${active ? "resume" : "pause"}`, Dimension, {}),
    listAccounts: (dimension) => call("GET", `/pipeline/accounts${dimension === null ? "" : `?dimension=${id(dimension)}`}`, AccountList),
    connectAccount: (body) => call("POST", "/pipeline/accounts", ConnectedAccount, body),
    setAccountActive: (account, active) => call("POST", `/pipeline/accounts/${id(account)}/${active ? "resume" : "pause"}`, Account, {}),
    removeAccount: (account) => call("DELETE", `/pipeline/accounts/${id(account)}`, RemovedAccount),
    listYouTubeProjects: () => call("GET", "/pipeline/youtube-projects", YouTubeProjectList),
    registerYouTubeProject: (body) => call("POST", "/pipeline/youtube-projects", YouTubeProject, body),
    removeYouTubeProject: (name) => call("DELETE", `/pipeline/youtube-projects/${id(name)}`, RemovedYouTubeProject),
    youtubeProjectClient: (name) => call("GET", `/pipeline/youtube-projects/${id(name)}/client`, YouTubeProjectClient),
    rotateCredentials: (body) => call("POST", "/pipeline/credentials/rotate", CredentialsRotationBatch, body),
    credentialKeys: () => call("GET", "/pipeline/credentials/keys", CredentialKeysCensus),
    weeklyReports: (week, dimension) =>
      call("GET", `/pipeline/reports/weekly?week=${id(week)}${dimension === null ? "" : `&dimension=${id(dimension)}`}`, WeeklyReportList),
    adapt: (body) => call("POST", "/pipeline/adapt", AdaptAnswer, body),
    listAdaptations: (dimension, limit) =>
      call("GET", `/pipeline/adaptations?limit=${limit}${dimension === null ? "" : `&dimension=${id(dimension)}`}`, AdaptationList),
    revertAdaptation: (adaptation) => call("POST", `/pipeline/adaptations/${id(adaptation)}/revert`, Adaptation, {}),
    setAdaptationPin: (dimension, parameter, pinned) => call("POST", `/pipeline/adapt/${pinned ? "pin" : "unpin"}`, AdaptPins, { dimension, parameter }),
    storageUsage: (tables) => call("GET", `/pipeline/storage/usage?tables=${tables}`, StorageUsage),
    housekeeping: (dryRun) => call("POST", "/pipeline/housekeeping", HousekeepingAnswer, { dry_run: dryRun }),
    housekeepingSettings: () => call("GET", "/pipeline/housekeeping/settings", HousekeepingSettings),
    setHousekeepingSettings: (changes) => call("PATCH", "/pipeline/housekeeping/settings", HousekeepingSettings, changes),
  };
}
