/**
 * The named bodies of the OpenAPI document (`components/schemas`): every request and response body
 * a route description names, each the very contract the route parses or answers with.
 */
import { z } from "zod";
import { Account, AccountList, ConnectAccountBody, ConnectedAccount, RemovedAccount } from "../../../shared/contracts/account.ts";
import { AdaptAnswer, Adaptation, AdaptationList, AdaptBody, AdaptPinBody, AdaptPins } from "../../../shared/contracts/adapt.ts";
import { AlertList } from "../../../shared/contracts/alerts.ts";
import { RunAnalyticsList } from "../../../shared/contracts/analytics.ts";
import { WorkerCallback, WorkerCallbackAnswer } from "../../../shared/contracts/callbacks.ts";
import { CredentialKeysCensus, CredentialsRotationBatch, RotateCredentialsBody } from "../../../shared/contracts/credentials.ts";
import { Dimension, DimensionConfig, DimensionList, DimensionPatch } from "../../../shared/contracts/dimension.ts";
import { HousekeepingAnswer, HousekeepingBody, HousekeepingSettings, HousekeepingSettingsBody, StorageUsage } from "../../../shared/contracts/housekeeping.ts";
import { ErrorAnswer } from "../../../shared/contracts/http-error.ts";
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
} from "../../../shared/contracts/operator.ts";
import { OpsOverview, OpsQueues, OpsQuota, OpsScheduleList, OpsScheduleRunNow, OpsVideoDetail, OpsVideoList } from "../../../shared/contracts/ops.ts";
import { WeeklyReportList } from "../../../shared/contracts/weekly-report.ts";
import {
  RegisterYouTubeProjectBody,
  RemovedYouTubeProject,
  YouTubeProject,
  YouTubeProjectClient,
  YouTubeProjectList,
} from "../../../shared/contracts/youtube-project.ts";

/** What GET /pipeline/openapi.json answers: an OpenAPI 3.1 document (checked whole by the tests). */
export const OpenApiDocument = z.object({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.object({ title: z.string(), version: z.string() }).loose(),
  paths: z.record(z.string(), z.unknown()),
}).loose();

export const components = {
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
  OpsOverview,
  OpsQueues,
  OpsVideoList,
  OpsVideoDetail,
  OpsQuota,
  OpsScheduleList,
  OpsScheduleRunNow,
  StorageUsage,
  HousekeepingBody,
  HousekeepingAnswer,
  HousekeepingSettings,
  HousekeepingSettingsBody,
  WorkerCallback,
  WorkerCallbackAnswer,
} satisfies Record<string, z.ZodType>;

export type ComponentName = keyof typeof components;
