/**
 * The YouTube Analytics emulator's settings and record for one data dir, in memory (a restart or
 * `POST /_emulator/reset` clears them): the seed its figures are drawn from, each video's appeal
 * and measured length, the quota used per project and Pacific day, and the queries it answered
 * (the last MAX_QUERIES, oldest first).
 */
import process from "node:process";
import type { EmulatorContext } from "../context.ts";
import type { VideoRecord } from "../youtube/store.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { seededDurationS, type VideoFacts } from "./figures.ts";

const DEFAULT_SEED = "md-ame";
/** The Analytics API's queries per project and day, as the emulator meters them. */
const DEFAULT_QUERIES_PER_DAY = 10_000;
const MAX_QUERIES = 1000;

interface AnsweredQuery {
  at: string;
  channel: string;
  client_id: string;
  video_id: string | null;
  start_date: string;
  end_date: string;
  metrics: string;
  dimensions: string | null;
  status: number;
  rows: number;
}

export interface AnalyticsState {
  seed: string;
  queriesPerDay: number;
  appeal: Map<string, number>;
  durations: Map<string, number>;
  /** `<client_id>/<quota day>` -> queries charged. */
  used: Map<string, number>;
  queries: AnsweredQuery[];
}

const states = new Map<string, AnalyticsState>();

function fresh(): AnalyticsState {
  return {
    seed: process.env.EMULATOR_ANALYTICS_SEED || DEFAULT_SEED,
    queriesPerDay: DEFAULT_QUERIES_PER_DAY,
    appeal: new Map(),
    durations: new Map(),
    used: new Map(),
    queries: [],
  };
}

export function analyticsFor(ctx: EmulatorContext): AnalyticsState {
  let state = states.get(ctx.dataDir);
  if (!state) {
    state = fresh();
    states.set(ctx.dataDir, state);
  }
  return state;
}

export function resetAnalytics(ctx: EmulatorContext): void {
  states.set(ctx.dataDir, fresh());
}

export function recordQuery(state: AnalyticsState, query: AnsweredQuery): void {
  state.queries.push(query);
  if (state.queries.length > MAX_QUERIES) state.queries.splice(0, state.queries.length - MAX_QUERIES);
}

/** A stored upload's facts for its figures: its length measured once (seeded when it cannot be), its appeal, its upload time. */
export async function videoFacts(state: AnalyticsState, record: VideoRecord): Promise<VideoFacts> {
  let durationS = state.durations.get(record.id);
  if (durationS === undefined) {
    const measured = await probeMedia(record.path).then((probe) => probe.duration_s, () => 0);
    durationS = measured > 0 ? measured : seededDurationS(state.seed, record.id);
    state.durations.set(record.id, durationS);
  }
  return { seed: state.seed, videoId: record.id, durationS, appeal: state.appeal.get(record.id) ?? 1, uploadedAtMs: Date.parse(record.uploaded_at) };
}
