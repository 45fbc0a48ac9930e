/**
 * The named bodies of the API (`components/schemas` of the OpenAPI document): every request and
 * response body a route declares, each the very contract the route parses or answers with, under
 * its component name. A named copy parses exactly as its contract does; the name lives on the copy
 * only, so JSON Schemas written from the contracts elsewhere (z.toJSONSchema) are not changed by it.
 */
import { z } from "zod";
import { Account, AccountList, ConnectAccountBody, ConnectedAccount, RemovedAccount } from "../contracts/account.ts";
import { AdaptAnswer, Adaptation, AdaptationList, AdaptBody, AdaptPinBody, AdaptPins } from "../contracts/adapt.ts";
import { AlertList } from "../contracts/alerts.ts";
import { RunAnalyticsList } from "../contracts/analytics.ts";
import { WorkerCallback, WorkerCallbackAnswer } from "../contracts/callbacks.ts";
import { CredentialKeysCensus, CredentialsRotationBatch, RotateCredentialsBody } from "../contracts/credentials.ts";
import { Dimension, DimensionConfig, DimensionList, DimensionPatch } from "../contracts/dimension.ts";
import { HousekeepingAnswer, HousekeepingBody, HousekeepingSettings, HousekeepingSettingsBody, StorageUsage } from "../contracts/housekeeping.ts";
import { ErrorAnswer } from "../contracts/http-error.ts";
import {
  AbortedRun,
  AbortRunBody,
  DeadLetterList,
  DeadLetterRetry,
  PipelineHealth,
  RunList,
  RunStatus,
  TickAnswer,
  TickBody,
  TriggeredRun,
  TriggerRunBody,
} from "../contracts/operator.ts";
import { OpsOverview, OpsQueues, OpsQuota, OpsScheduleList, OpsScheduleRunNow, OpsVideoDetail, OpsVideoList } from "../contracts/ops.ts";
import { PriceList, PriceReset, PriceResetResult, PriceSet, ProviderPrice, SpendReport } from "../contracts/spend.ts";
import { ApproveReviewBody, RejectReviewBody, Review, ReviewDetail, ReviewList } from "../contracts/review.ts";
import { WeeklyReportList } from "../contracts/weekly-report.ts";
import { RegisterYouTubeProjectBody, RemovedYouTubeProject, YouTubeProject, YouTubeProjectClient, YouTubeProjectList } from "../contracts/youtube-project.ts";

/** What GET /pipeline/openapi.json answers: an OpenAPI 3.1 document (checked whole by the tests). */
const OpenApiDocument = z.object({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.object({ title: z.string(), version: z.string() }).loose(),
  paths: z.record(z.string(), z.unknown()),
}).loose();

const contracts = {
  ErrorAnswer,
  PipelineHealth,
  OpenApiDocument,
  TriggerRunBody,
  TriggeredRun,
  RunStatus,
  TickBody,
  TickAnswer,
  RunList,
  DeadLetterList,
  DeadLetterRetry,
  AbortRunBody,
  AbortedRun,
  DimensionConfig,
  DimensionPatch,
  Dimension,
  DimensionList,
  ConnectAccountBody,
  Account,
  AccountList,
  ConnectedAccount,
  RemovedAccount,
  RegisterYouTubeProjectBody,
  YouTubeProject,
  YouTubeProjectList,
  YouTubeProjectClient,
  RemovedYouTubeProject,
  RotateCredentialsBody,
  CredentialsRotationBatch,
  CredentialKeysCensus,
  AlertList,
  RunAnalyticsList,
  WeeklyReportList,
  AdaptBody,
  AdaptAnswer,
  Adaptation,
  AdaptationList,
  AdaptPinBody,
  AdaptPins,
  ReviewList,
  ReviewDetail,
  ApproveReviewBody,
  RejectReviewBody,
  Review,
  OpsOverview,
  OpsQueues,
  OpsVideoList,
  OpsVideoDetail,
  OpsQuota,
  OpsScheduleList,
  OpsScheduleRunNow,
  SpendReport,
  ProviderPrice,
  PriceList,
  PriceSet,
  PriceReset,
  PriceResetResult,
  StorageUsage,
  HousekeepingBody,
  HousekeepingAnswer,
  HousekeepingSettings,
  HousekeepingSettingsBody,
  WorkerCallback,
  WorkerCallbackAnswer,
};

type Named<T> = { readonly [K in keyof T]: T[K] };

/**
 * Each contract under its component name: a copy carrying the name as its `id` (the name Zod's
 * registry and the document generator read), so the contract itself keeps no id.
 */
function named<T extends Record<string, z.ZodType>>(schemas: T): Named<T> {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, schema.meta({ id: name })])) as unknown as Named<T>;
}

export const bodies = named(contracts);
