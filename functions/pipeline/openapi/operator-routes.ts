/**
 * The operator routes of the `pipeline` Edge Function (functions/pipeline/operator/*, adapt/routes.ts),
 * described for the OpenAPI document: one block per route, in the order of their modules. See
 * routes.ts for what a block holds.
 */
import { AccountsQuery } from "../../../shared/contracts/account.ts";
import { DimensionId } from "../../../shared/contracts/dimension.ts";
import { WeeklyReportQuery } from "../../../shared/contracts/weekly-report.ts";
import { YouTubeProjectName } from "../../../shared/contracts/youtube-project.ts";
import type { RouteDoc } from "../../../shared/http/openapi.ts";
import { AdaptationsQuery } from "../adapt/routes.ts";
import { AlertsQuery } from "../operator/alert-routes.ts";
import { RunId } from "../operator-routes.ts";
import { dimension, dimensionConfig, dimensionPatch, errorExamples, examples } from "./examples.ts";
import { body, bodyOf, errors, ok, param, SERVICE_ROLE, serviceBodyErrors, serviceErrors, uuidParam } from "./responses.ts";

const dimensionParam = { id: param(DimensionId, "The dimension's id") };
const noDimension = errors.notFound("dimension", errorExamples.dimensionNotFound);
const noAccount = errors.notFound("account", errorExamples.accountNotFound);
const projectParam = { name: param(YouTubeProjectName, "The project's registered name") };
const noProject = errors.notFound("YouTube project of that name", errorExamples.projectNotFound);

export const operatorRoutes: RouteDoc[] = [
  // operator/dimension-routes.ts
  {
    method: "get",
    path: "/pipeline/dimensions",
    operationId: "listDimensions",
    tags: ["dimensions"],
    security: SERVICE_ROLE,
    summary: "Every dimension, with its account counts",
    responses: { 200: ok("The dimensions", "DimensionList", "one dimension", { dimensions: [dimension] }), ...serviceErrors },
  },
  {
    method: "post",
    path: "/pipeline/dimensions",
    operationId: "createDimension",
    tags: ["dimensions"],
    security: SERVICE_ROLE,
    summary: "Create a dimension from a whole configuration (mdame.create_dimension)",
    description: "Every bad field is reported at once (400) before anything is written.",
    body: { required: true, ...bodyOf("DimensionConfig", "the fields without a default", dimensionConfig) },
    responses: {
      201: ok("Created", "Dimension", "created", dimension),
      ...serviceBodyErrors,
      409: errors.conflict("The id is taken", { error: "dimension tech-explained already exists (change it with `mdame dimension set`)" }),
    },
  },
  {
    method: "get",
    path: "/pipeline/dimensions/{id}",
    operationId: "getDimension",
    tags: ["dimensions"],
    security: SERVICE_ROLE,
    summary: "One dimension",
    params: dimensionParam,
    responses: { 200: ok("The dimension", "Dimension", "a dimension", dimension), ...serviceErrors, 404: noDimension },
  },
  {
    method: "patch",
    path: "/pipeline/dimensions/{id}",
    operationId: "updateDimension",
    tags: ["dimensions"],
    security: SERVICE_ROLE,
    summary: "Change some fields (and some of `publishing`); the merged configuration is checked whole (mdame.update_dimension)",
    params: dimensionParam,
    body: { required: true, ...bodyOf("DimensionPatch", "two videos a day, public at 18:00", dimensionPatch) },
    responses: { 200: ok("The dimension afterwards", "Dimension", "changed", dimension), ...serviceBodyErrors, 404: noDimension },
  },
  ...(["pause", "resume"] as const).map((action): RouteDoc => ({
    method: "post",
    path: `/pipeline/dimensions/{id}/${action}`,
    operationId: `${action}Dimension`,
    tags: ["dimensions"],
    security: SERVICE_ROLE,
    summary: action === "pause" ? "New runs leave the dimension out (mdame.set_dimension_active)" : "New runs pick the dimension again",
    params: dimensionParam,
    responses: {
      200: ok("The dimension afterwards", "Dimension", "the dimension", { ...dimension, active: action === "resume" }),
      ...serviceErrors,
      404: noDimension,
    },
  })),

  // operator/account-routes.ts
  {
    method: "get",
    path: "/pipeline/accounts",
    operationId: "listAccounts",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "Publishing accounts, by dimension then channel; never their credentials",
    query: AccountsQuery,
    responses: { 200: ok("The accounts", "AccountList", "one YouTube channel", { accounts: [examples.account] }), ...serviceErrors, 404: noDimension },
  },
  {
    method: "post",
    path: "/pipeline/accounts",
    operationId: "connectAccount",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "Connect an account: create or update it and store its refresh token sealed with CREDENTIALS_KEY, in one transaction",
    body: {
      required: true,
      ...body("ConnectAccountBody", {
        youtube: { summary: "a YouTube channel", value: examples.connectYouTube },
        tiktok: { summary: "a TikTok creator: open_id and client key required", value: examples.connectTikTok },
      }),
    },
    responses: {
      200: ok("An account connected again", "ConnectedAccount", "reconnected", { account: examples.account, created: false }),
      201: ok("A new account", "ConnectedAccount", "connected", { account: examples.account, created: true }),
      ...serviceBodyErrors,
      404: errors.notFound("dimension, or no YouTube project with the body's OAuth client", errorExamples.dimensionNotFound),
      409: errors.conflict("This TikTok creator is connected to the dimension under another handle", {
        error: "this TikTok account (open_id _000Qx-example-open-id) is already connected to dimension tech-explained as techexplained",
      }),
    },
  },
  ...(["pause", "resume"] as const).map((action): RouteDoc => ({
    method: "post",
    path: `/pipeline/accounts/{id}/${action}`,
    operationId: `${action}Account`,
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: action === "pause" ? "Publishing skips the account (mdame.set_account_active)" : "Publishing uses the account again",
    params: { id: uuidParam("account") },
    responses: {
      200: ok("The account afterwards", "Account", "the account", { ...examples.account, active: action === "resume" }),
      ...serviceErrors,
      404: noAccount,
    },
  })),
  {
    method: "delete",
    path: "/pipeline/accounts/{id}",
    operationId: "removeAccount",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "Remove an account; one with publications is kept as their record, paused and without credentials (mdame.remove_account)",
    params: { id: uuidParam("account") },
    responses: { 200: ok("What was removed", "RemovedAccount", "kept for its publications", examples.removedAccount), ...serviceErrors, 404: noAccount },
  },

  // operator/youtube-project-routes.ts
  {
    method: "get",
    path: "/pipeline/youtube-projects",
    operationId: "listYouTubeProjects",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "Google projects (OAuth clients): their daily buckets, accounts, planned uploads a day and uploads today; never a secret",
    responses: {
      200: ok("The projects, registered ones first", "YouTubeProjectList", "a registered project and the environment's", examples.youtubeProjects),
      ...serviceErrors,
    },
  },
  {
    method: "post",
    path: "/pipeline/youtube-projects",
    operationId: "registerYouTubeProject",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary:
      "Register a Google project under a short name; its client secret is sealed with CREDENTIALS_KEY for its client id (mdame.register_youtube_project)",
    description:
      "Absent sizes are YouTube's defaults (100 uploads, 10,000 units, 10,000 analytics queries a day), or what the engine had recorded for a client met through connects. The name `default` is the environment's client.",
    body: { required: true, ...bodyOf("RegisterYouTubeProjectBody", "a second project", examples.registerProject) },
    responses: {
      201: ok("Registered", "YouTubeProject", "registered", examples.youtubeProject),
      ...serviceBodyErrors,
      409: errors.conflict("The name, or the OAuth client, is registered already", {
        error:
          "a YouTube project named second is registered already (client 210987654321-second.apps.googleusercontent.com): choose another name, or remove it first",
      }),
    },
  },
  {
    method: "delete",
    path: "/pipeline/youtube-projects/{name}",
    operationId: "removeYouTubeProject",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "Unregister a Google project: its name and sealed secret are erased, its ledger history stays (mdame.remove_youtube_project)",
    params: projectParam,
    responses: {
      200: ok("What was unregistered", "RemovedYouTubeProject", "removed", examples.removedProject),
      ...serviceErrors,
      404: noProject,
      409: errors.conflict("Accounts holding credentials were connected through it", {
        error:
          "YouTube project second is used by 1 account(s): @techexplained (tech-explained); connect them through another project (mdame account connect youtube --project <name>) or remove them first",
      }),
    },
  },
  {
    method: "get",
    path: "/pipeline/youtube-projects/{name}/client",
    operationId: "getYouTubeProjectClient",
    tags: ["accounts"],
    security: SERVICE_ROLE,
    summary: "The OAuth client id and secret `mdame account connect youtube --project` signs in with (answered with `Cache-Control: no-store`)",
    description:
      "A Desktop app client's secret is not confidential to Google (installed apps carry it); it is sealed at rest and handed only to the service-role holder. `default` is the CLI's own GOOGLE_OAUTH_CLIENT_ID (404 here).",
    params: projectParam,
    responses: {
      200: ok("The client", "YouTubeProjectClient", "a registered project's client", examples.youtubeProjectClient),
      ...serviceErrors,
      404: noProject,
      409: errors.conflict("The sealed secret does not open with the functions' key ring", {
        error:
          "the client secret of Google project 210987654321-second.apps.googleusercontent.com is sealed with key 9f8e7d6c, which is not in the key ring (1a2b3c4d): put that key back in CREDENTIALS_KEYS_PREVIOUS and run `mdame credentials rotate`, or register the project again",
      }),
    },
  },

  // operator/credential-routes.ts
  {
    method: "post",
    path: "/pipeline/credentials/rotate",
    operationId: "rotateCredentials",
    tags: ["credentials"],
    security: SERVICE_ROLE,
    summary: "Re-seal the next batch of accounts' credentials with the current key (docs/guides/rotation.md)",
    body: { required: false, ...bodyOf("RotateCredentialsBody", "a dry run of the first batch", examples.rotateBatch) },
    responses: { 200: ok("Each account's outcome, the progress and `next`", "CredentialsRotationBatch", "a dry run", examples.rotation), ...serviceBodyErrors },
  },
  {
    method: "get",
    path: "/pipeline/credentials/keys",
    operationId: "credentialKeys",
    tags: ["credentials"],
    security: SERVICE_ROLE,
    summary: "Accounts by the key their credentials name; the previous keys no value names",
    responses: { 200: ok("The census", "CredentialKeysCensus", "every account on the current key", examples.keys), ...serviceErrors },
  },

  // operator/alert-routes.ts
  {
    method: "get",
    path: "/pipeline/alerts",
    operationId: "listAlerts",
    tags: ["alerts"],
    security: SERVICE_ROLE,
    summary: "Recent alerts, newest first, with their delivery, and whether this environment delivers them",
    query: AlertsQuery,
    responses: { 200: ok("The alerts", "AlertList", "one alert sent", examples.alerts), ...serviceErrors },
  },

  // operator/analytics-routes.ts
  {
    method: "get",
    path: "/pipeline/runs/{id}/analytics",
    operationId: "getRunAnalytics",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "The YouTube Analytics fetched for a run's published videos (empty before any fetch)",
    params: { id: param(RunId, "The run's id") },
    responses: {
      200: ok("The figures, per video and window", "RunAnalyticsList", "day-3 figures of one video", examples.analytics),
      ...serviceErrors,
      404: errors.notFound("run", errorExamples.runNotFound),
    },
  },

  // operator/report-routes.ts
  {
    method: "get",
    path: "/pipeline/reports/weekly",
    operationId: "weeklyReports",
    tags: ["reports"],
    security: SERVICE_ROLE,
    summary: "The weekly report of the week holding `week`, for every active dimension or the one named: figures, Markdown and chart (PNG, base64)",
    query: WeeklyReportQuery,
    responses: { 200: ok("The reports", "WeeklyReportList", "a week with no active dimension", examples.weeklyReports), ...serviceErrors, 404: noDimension },
  },

  // adapt/routes.ts
  {
    method: "post",
    path: "/pipeline/adapt",
    operationId: "adapt",
    tags: ["adapt"],
    security: SERVICE_ROLE,
    summary: "Decide now for one dimension or every active one; a dry run records nothing (docs/reference/adaptive.md)",
    body: { required: false, ...bodyOf("AdaptBody", "a dry run for one dimension", examples.adaptDryRun) },
    responses: { 200: ok("Each dimension's decisions", "AdaptAnswer", "one move proposed", examples.adaptAnswer), ...serviceBodyErrors, 404: noDimension },
  },
  {
    method: "get",
    path: "/pipeline/adaptations",
    operationId: "listAdaptations",
    tags: ["adapt"],
    security: SERVICE_ROLE,
    summary: "The recorded moves, newest first",
    query: AdaptationsQuery,
    responses: { 200: ok("The moves", "AdaptationList", "one move", { adaptations: [examples.adaptation] }), ...serviceErrors },
  },
  {
    method: "post",
    path: "/pipeline/adaptations/{id}/revert",
    operationId: "revertAdaptation",
    tags: ["adapt"],
    security: SERVICE_ROLE,
    summary: "Put the value before a move in force again",
    params: { id: uuidParam("adaptation") },
    responses: {
      200: ok("The move, reverted", "Adaptation", "reverted", { ...examples.adaptation, reverted_at: "2026-12-02T08:00:00.000Z" }),
      ...serviceBodyErrors,
      404: errors.notFound("adaptation", { error: `no adaptation ${examples.adaptation.id}` }),
      409: errors.conflict("A later move of the same parameter is in force", {
        error:
          `adaptation ${examples.adaptation.id} is not the one in force for hook_threshold of tech-explained: revert 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e first`,
      }),
    },
  },
  ...(["pin", "unpin"] as const).map((action): RouteDoc => ({
    method: "post",
    path: `/pipeline/adapt/${action}`,
    operationId: `${action}AdaptParameter`,
    tags: ["adapt"],
    security: SERVICE_ROLE,
    summary: action === "pin" ? "The parameter never moves" : "The parameter may move again",
    body: { required: true, ...bodyOf("AdaptPinBody", "the hook threshold", examples.pin) },
    responses: {
      200: ok("The dimension's pinned parameters afterwards", "AdaptPins", "pinned", action === "pin" ? examples.pins : { ...examples.pins, pinned: [] }),
      ...serviceBodyErrors,
      404: noDimension,
    },
  })),
];
