/**
 * What the dashboard reads: the CLI's API client (runs, dead letters, alerts, accounts, analytics)
 * and the ops routes made for it (`/pipeline/ops/...`), each through the typed client and parsed
 * with its route's declared answer.
 */
import { pipelineRoutes as routes } from "../../shared/api/routes/index.ts";
import { visibleJson } from "../../shared/text/storable.ts";
import { createApiClient, createApiTransport, type Fetch } from "../api-client.ts";
import type { ApiConfig } from "../config.ts";

function createOpsClient(config: ApiConfig, fetchImpl?: Fetch) {
  // Every string read is shown with its controls escaped (a bidi control in a worker's failure
  // message would reorder the row around it), as the CLI prints them.
  const { rpc, read } = createApiTransport(config, fetchImpl, visibleJson);
  const ops = rpc.pipeline.ops;
  return {
    overview: (failures: number) => read(routes.opsOverview, ops.overview.$get({ query: { failures } })),
    queues: () => read(routes.opsQueues, ops.queues.$get({ query: {} })),
    videos: (limit: number) => read(routes.opsVideos, ops.videos.$get({ query: { limit } })),
    video: (id: string) => read(routes.opsVideo, ops.videos[":id"].$get({ param: { id } })),
    quota: () => read(routes.opsQuota, ops.quota.$get({ query: {} })),
    schedules: () => read(routes.opsSchedules, ops.schedules.$get({ query: {} })),
    runSchedule: (name: string) => read(routes.opsRunSchedule, ops.schedules[":name"].run.$post({ param: { name } })),
  };
}

export function createDashboardApi(config: ApiConfig, fetchImpl?: Fetch) {
  return { baseUrl: config.baseUrl, api: createApiClient(config, fetchImpl, visibleJson), ops: createOpsClient(config, fetchImpl) };
}

/** Everything the dashboard calls. */
export type DashboardApi = ReturnType<typeof createDashboardApi>;
