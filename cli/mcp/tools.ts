/**
 * What `mdame mcp` offers an MCP client, declared once: each tool's name, description, input (the
 * API's own Zod contract, so the SDK validates arguments with the schema the route validates bodies
 * with), annotations and handler; and the resources. Handlers call the CLI's typed API client
 * (cli/api-client.ts) and the dashboard's ops client, nothing else.
 */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { pipelineRoutes as routes } from "../../shared/api/routes/index.ts";
import { DimensionConfig } from "../../shared/contracts/dimension.ts";
import { TriggerRunBody } from "../../shared/contracts/operator.ts";
import { ApproveReviewBody, RejectReviewBody, ReviewListQuery } from "../../shared/contracts/review.ts";
import { SpendQuery } from "../../shared/contracts/spend.ts";
import { WeeklyReportQuery } from "../../shared/contracts/weekly-report.ts";
import { chartPng } from "../../shared/reports/chart-png.ts";
import { renderWeeklyChartSvg } from "../../shared/reports/weekly-charts.ts";
import type { ApiClient } from "../api-client.ts";
import type { DashboardApi } from "../dashboard/ops-client.ts";

/**
 * The client calls the tools and resources make: a subset of the CLI's API client and of the
 * dashboard's ops client, which `createDashboardApi` satisfies (tests pass a fake). A tool over a
 * new operator route adds its api-client method's name here and its entry to MCP_TOOLS.
 */
export interface McpBackend {
  /** The API's address, for messages. */
  baseUrl: string;
  api: Pick<
    ApiClient,
    | "listDimensions"
    | "showDimension"
    | "addDimension"
    | "triggerRun"
    | "runStatus"
    | "listRuns"
    | "listDeadLetters"
    | "retryDeadLetter"
    | "weeklyReports"
    | "listReviews"
    | "getReview"
    | "approveReview"
    | "rejectReview"
    | "spend"
  >;
  ops: Pick<DashboardApi["ops"], "video" | "videos">;
}

/** One tool as the server registers it. `run` is called with arguments `input` has already parsed. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  run(backend: McpBackend, args: unknown): Promise<CallToolResult>;
}

/** Declares a tool with its handler typed by its input contract. */
function tool<S extends z.ZodObject>(
  declared: Omit<McpTool, "input" | "run"> & { input: S; run(backend: McpBackend, args: z.output<S>): Promise<CallToolResult> },
): McpTool {
  // The SDK parsed the arguments with `input` before calling: they are its output.
  return { ...declared, run: (backend, args) => declared.run(backend, args as z.output<S>) };
}

/** An API answer as a tool's result: the JSON for the model to read, and the same as structured content. */
export function jsonResult(answer: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(answer, null, 2) }], structuredContent: answer };
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const NO_INPUT = z.object({}).strict();

export const MCP_TOOLS: McpTool[] = [
  tool({
    name: "list_dimensions",
    title: "List dimensions",
    description: "Every dimension (content niche) with its language, voice, daily limit, whether runs pick it (active) and its account counts.",
    input: NO_INPUT,
    annotations: READ,
    run: async ({ api }) => jsonResult(await api.listDimensions()),
  }),
  tool({
    name: "show_dimension",
    title: "Show a dimension",
    description: "One dimension's whole configuration (sources, style, safety profile, publishing, adapt bounds) and its account counts.",
    input: routes.getDimension.request.params,
    annotations: READ,
    run: async ({ api }, { id }) => jsonResult(await api.showDimension(id)),
  }),
  tool({
    name: "add_dimension",
    title: "Add a dimension",
    description:
      "Create a dimension from a whole configuration, as `mdame dimension add --file` does (the JSON Schema is `mdame dimension schema`). Fields with a default may be left out; every bad field is reported at once and nothing is written. An id already taken is refused.",
    input: DimensionConfig,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ api }, config) => jsonResult(await api.addDimension(config)),
  }),
  tool({
    name: "trigger_run",
    title: "Trigger a run",
    description:
      "Start today's run of every active dimension (or of `dimension` only), or find the one already started: triggering twice makes one run. With `idempotency_key`, the run that key names. The run makes and publishes videos on the dimensions' accounts; follow it with run_status.",
    input: TriggerRunBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ api }, body) => jsonResult(await api.triggerRun(body)),
  }),
  tool({
    name: "run_status",
    title: "Run status",
    description:
      "A run, its dimensions and its units: each unit's stage, error, quality gate, video and publications. A run is over once completed, failed or rolled_back.",
    input: routes.getRunStatus.request.params,
    annotations: READ,
    run: async ({ api }, { id }) => jsonResult(await api.runStatus(id)),
  }),
  tool({
    name: "list_runs",
    title: "List runs",
    description: "Recent runs, newest first, with their state.",
    input: routes.listRuns.request.query,
    annotations: READ,
    run: async ({ api }, { limit }) => jsonResult(await api.listRuns(limit)),
  }),
  tool({
    name: "list_dead_letters",
    title: "List dead letters",
    description: "Dead letters, newest first: queue messages that used up their attempts, with their unit, run and last error.",
    input: routes.listDeadLetters.request.query,
    annotations: READ,
    run: async ({ api }, { limit }) => jsonResult(await api.listDeadLetters(limit)),
  }),
  tool({
    name: "retry_dead_letter",
    title: "Retry a dead letter",
    description:
      "Queue a dead letter's message again, putting its unit (and run) back where the work stopped. A dead letter is retried once; a second retry, or one whose run has finished, is refused.",
    input: routes.retryDeadLetter.request.params,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ api }, { id }) => jsonResult(await api.retryDeadLetter(id)),
  }),
  tool({
    name: "list_reviews",
    title: "List videos waiting for review",
    description:
      "The rendered videos of dimensions that require review (`review` in their configuration), waiting for approve_review or reject_review: title, dimension, when each expires and what happens then (on_expiry).",
    input: ReviewListQuery,
    annotations: READ,
    run: async ({ api }, { dimension }) => jsonResult(await api.listReviews(dimension ?? null)),
  }),
  tool({
    name: "show_review",
    title: "Show a review",
    description:
      "One video waiting for (or decided in) review: its script, scenes, quality gate, a signed link playing the render, and the decision once made.",
    input: routes.getReview.request.params,
    annotations: READ,
    run: async ({ api }, { unit_id }) => jsonResult(await api.getReview(unit_id)),
  }),
  tool({
    name: "approve_review",
    title: "Approve a video",
    description:
      "Publish a video that waits for review, through the normal publish stage (once per account, crash-safe). `title` and `description` replace the script's, within the same limits. Approving twice changes nothing; a rejected video cannot be approved.",
    input: routes.approveReview.request.params.extend(ApproveReviewBody.shape).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ api }, { unit_id, ...edits }) => jsonResult(await api.approveReview(unit_id, edits)),
  }),
  tool({
    name: "reject_review",
    title: "Reject a video",
    description:
      "Never publish a video that waits for review: its unit ends rejected, and the reason reaches the weekly report and the adaptive engine. It cannot be undone; an approved video cannot be rejected.",
    input: routes.rejectReview.request.params.extend(RejectReviewBody.shape).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ api }, { unit_id, reason }) => jsonResult(await api.rejectReview(unit_id, reason)),
  }),
  tool({
    name: "spend",
    title: "Spend",
    description:
      "A month's recorded cost of provider calls (LLM tokens, images, speech, stock searches, GPU seconds) by dimension and provider, with calls answered from a cache (at no cost) apart, and each dimension's budget. Defaults: every dimension, this month (UTC).",
    input: SpendQuery,
    annotations: READ,
    run: async ({ api }, { dimension, month }) => jsonResult(await api.spend({ dimension: dimension ?? null, month: month ?? null })),
  }),
  tool({
    name: "weekly_report",
    title: "Weekly report",
    description:
      "The weekly report (Monday to Sunday) of the week holding `week`, for every active dimension or the one named: outcomes, stage latency, cache hits, quota, best and worst videos, as Markdown and figures, with its chart as an image.",
    input: WeeklyReportQuery,
    annotations: READ,
    run: async ({ api }, { week, dimension }) => {
      const list = await api.weeklyReports(week, dimension ?? null);
      const figures = { week_start: list.week_start, reports: list.reports.map(({ report, markdown }) => ({ report, markdown })) };
      // The charts are drawn here from the figures, as `mdame report --chart` draws them.
      const charts = await Promise.all(
        list.reports.map(async ({ report }) => Buffer.from(await chartPng(await renderWeeklyChartSvg(report))).toString("base64")),
      );
      return {
        content: [
          ...list.reports.flatMap(({ markdown }, i) => [
            { type: "text" as const, text: markdown },
            { type: "image" as const, data: charts[i]!, mimeType: "image/png" },
          ]),
          ...(list.reports.length === 0 ? [{ type: "text" as const, text: `no active dimension to report for the week of ${list.week_start}` }] : []),
        ],
        structuredContent: figures,
      };
    },
  }),
];

/** The publication a video resource names: the id GET /pipeline/ops/videos/{id} takes. */
export const VideoResourceParams = routes.opsVideo.request.params;

/** Resources: a video's summary and its quality gate, by publication id. */
export const VIDEO_RESOURCES = {
  summary: {
    name: "video",
    template: "mdame://videos/{id}",
    title: "Video summary",
    description: "One published (or publishing) video: platform, account, link, status, its render, scenes with their backends and credits, and its analytics.",
    read: async (backend: McpBackend, id: string) => {
      const { quality: _quality, ...summary } = await backend.ops.video(id);
      return summary;
    },
  },
  quality: {
    name: "video-quality",
    template: "mdame://videos/{id}/quality",
    title: "Video quality gate",
    description:
      "The quality gate's verdict on a video's render and each check's measure (resolution, codecs, duration, loudness and true peak, black and frozen frames, captions' safe zone); null when none were recorded.",
    read: async (backend: McpBackend, id: string) => {
      const { video, quality } = await backend.ops.video(id);
      return { id: video.id, title: video.title, quality };
    },
  },
} as const;

/** How many recent videos the resource list offers. */
export const LISTED_VIDEOS = 20;
