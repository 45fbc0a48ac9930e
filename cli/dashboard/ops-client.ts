/**
 * What the dashboard reads: the CLI's API client (runs, dead letters, alerts, accounts, analytics)
 * and the ops routes made for it (`/pipeline/ops/...`), each answer parsed with its contract.
 */
import { OpsOverview, OpsQueues, OpsQuota, OpsScheduleList, OpsScheduleRunNow, OpsVideoDetail, OpsVideoList } from "../../shared/contracts/ops.ts";
import { type ApiClient, createApiCall, createApiClient, type Fetch } from "../api-client.ts";
import type { ApiConfig } from "../config.ts";
import { visibleJson } from "../../shared/text/storable.ts";

interface OpsClient {
  overview(failures: number): Promise<OpsOverview>;
  queues(): Promise<OpsQueues>;
  videos(limit: number): Promise<OpsVideoList>;
  video(publicationId: string): Promise<OpsVideoDetail>;
  quota(): Promise<OpsQuota>;
  schedules(): Promise<OpsScheduleList>;
  runSchedule(name: string): Promise<OpsScheduleRunNow>;
}

/** Everything the dashboard calls. */
export interface DashboardApi {
  readonly baseUrl: string;
  api: ApiClient;
  ops: OpsClient;
}

function createOpsClient(config: ApiConfig, fetchImpl?: Fetch): OpsClient {
  const call = createApiCall(config, fetchImpl, visibleJson);
  const id = encodeURIComponent;
  return {
    overview: (failures) => call("GET", `/pipeline/ops/overview?failures=${failures}`, OpsOverview),
    queues: () => call("GET", "/pipeline/ops/queues", OpsQueues),
    videos: (limit) => call("GET", `/pipeline/ops/videos?limit=${limit}`, OpsVideoList),
    video: (publicationId) => call("GET", `/pipeline/ops/videos/${id(publicationId)}`, OpsVideoDetail),
    quota: () => call("GET", "/pipeline/ops/quota", OpsQuota),
    schedules: () => call("GET", "/pipeline/ops/schedules", OpsScheduleList),
    runSchedule: (name) => call("POST", `/pipeline/ops/schedules/${id(name)}/run`, OpsScheduleRunNow, {}),
  };
}

export function createDashboardApi(config: ApiConfig, fetchImpl?: Fetch): DashboardApi {
  // Every string read is shown with its controls escaped (a bidi control in a worker's failure
  // message would reorder the row around it), as the CLI prints them.
  return { baseUrl: config.baseUrl, api: createApiClient(config, fetchImpl, visibleJson), ops: createOpsClient(config, fetchImpl) };
}
