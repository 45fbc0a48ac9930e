/**
 * Publishing accounts, the Google projects they connect through, and the key rotation of their
 * credentials (functions/pipeline/operator/account-routes.ts, youtube-project-routes.ts and
 * credential-routes.ts serve them; `mdame account ...`, `mdame youtube-project ...`, `mdame credentials ...`).
 */
import { z } from "@hono/zod-openapi";
import { AccountsQuery } from "../../contracts/account.ts";
import { YouTubeProjectName } from "../../contracts/youtube-project.ts";
import { bodies } from "../components.ts";
import { errorExamples, examples } from "../examples.ts";
import { body, errors, ok, pauseAndResume, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";
import { noDimension } from "./dimensions.ts";

export const accountParams = z.object({ id: z.string().uuid().describe("The account's id (a uuid)") });
const noAccount = errors.notFound("account", errorExamples.accountNotFound);
export const projectParams = z.object({ name: YouTubeProjectName.describe("The project's registered name") });
/** What every route of one named project may answer besides its own: the service errors, and 404 for an unknown name. */
const projectErrors = { ...serviceErrors, 404: errors.notFound("YouTube project of that name", errorExamples.projectNotFound) };

const route = routesOf("accounts");
const credentials = routesOf("credentials");
const setActive = pauseAndResume(route, {
  what: "account",
  path: "/pipeline/accounts/{id}",
  params: accountParams,
  schema: bodies.Account,
  example: examples.account,
  notFound: noAccount,
});

export const accountRoutes = {
  listAccounts: route({
    method: "get",
    path: "/pipeline/accounts",
    operationId: "listAccounts",
    summary: "Publishing accounts, by dimension then channel; never their credentials",
    request: { query: AccountsQuery },
    responses: { 200: ok("The accounts", bodies.AccountList, "one YouTube channel", { accounts: [examples.account] }), ...serviceErrors, 404: noDimension },
  }),
  connectAccount: route({
    method: "post",
    path: "/pipeline/accounts",
    operationId: "connectAccount",
    summary: "Connect an account: create or update it and store its refresh token sealed with CREDENTIALS_KEY, in one transaction",
    request: {
      body: body(bodies.ConnectAccountBody, true, {
        youtube: { summary: "a YouTube channel", value: examples.connectYouTube },
        tiktok: { summary: "a TikTok creator: open_id and client key required", value: examples.connectTikTok },
        instagram: { summary: "an Instagram professional account: IG user id and Meta app id required", value: examples.connectInstagram },
      }),
    },
    responses: {
      200: ok("An account connected again", bodies.ConnectedAccount, "reconnected", { account: examples.account, created: false }),
      201: ok("A new account", bodies.ConnectedAccount, "connected", { account: examples.account, created: true }),
      ...serviceBodyErrors,
      404: errors.notFound("dimension, or no YouTube project with the body's OAuth client", errorExamples.dimensionNotFound),
      409: errors.conflict("This TikTok creator, Instagram account or Page is connected to the dimension under another handle", {
        error:
          "this tiktok account (open_id _000Qx-example-open-id) is already connected to dimension tech-explained as techexplained: reconnect it with --channel techexplained, or remove account 6f1c2a4e-0d3b-4b7a-9c1e-2f4a5b6c7d8e first",
      }),
    },
  }),
  pauseAccount: setActive("pause", "Publishing skips the account (mdame.set_account_active)"),
  resumeAccount: setActive("resume", "Publishing uses the account again"),
  removeAccount: route({
    method: "delete",
    path: "/pipeline/accounts/{id}",
    operationId: "removeAccount",
    summary: "Remove an account; one with publications is kept as their record, paused and without credentials (mdame.remove_account)",
    request: { params: accountParams },
    responses: { 200: ok("What was removed", bodies.RemovedAccount, "kept for its publications", examples.removedAccount), ...serviceErrors, 404: noAccount },
  }),

  listYouTubeProjects: route({
    method: "get",
    path: "/pipeline/youtube-projects",
    operationId: "listYouTubeProjects",
    summary: "Google projects (OAuth clients): their daily buckets, accounts, planned uploads a day and uploads today; never a secret",
    responses: {
      200: ok("The projects, registered ones first", bodies.YouTubeProjectList, "a registered project and the environment's", examples.youtubeProjects),
      ...serviceErrors,
    },
  }),
  registerYouTubeProject: route({
    method: "post",
    path: "/pipeline/youtube-projects",
    operationId: "registerYouTubeProject",
    summary:
      "Register a Google project under a short name; its client secret is sealed with CREDENTIALS_KEY for its client id (mdame.register_youtube_project)",
    description:
      "Absent sizes are YouTube's defaults (100 uploads, 10,000 units, 10,000 analytics queries a day), or what the engine had recorded for a client met through connects. The name `default` is the environment's client.",
    request: { body: body(bodies.RegisterYouTubeProjectBody, true, { default: { summary: "a second project", value: examples.registerProject } }) },
    responses: {
      201: ok("Registered", bodies.YouTubeProject, "registered", examples.youtubeProject),
      ...serviceBodyErrors,
      409: errors.conflict("The name, or the OAuth client, is registered already", {
        error:
          "a YouTube project named second is registered already (client 210987654321-second.apps.googleusercontent.com): choose another name, or remove it first",
      }),
    },
  }),
  removeYouTubeProject: route({
    method: "delete",
    path: "/pipeline/youtube-projects/{name}",
    operationId: "removeYouTubeProject",
    summary: "Unregister a Google project: its name and sealed secret are erased, its ledger history stays (mdame.remove_youtube_project)",
    request: { params: projectParams },
    responses: {
      200: ok("What was unregistered", bodies.RemovedYouTubeProject, "removed", examples.removedProject),
      ...projectErrors,
      409: errors.conflict("Accounts holding credentials were connected through it", {
        error:
          "YouTube project second is used by 1 account(s): @techexplained (tech-explained); connect them through another project (mdame account connect youtube --project <name>) or remove them first",
      }),
    },
  }),
  getYouTubeProjectClient: route({
    method: "get",
    path: "/pipeline/youtube-projects/{name}/client",
    operationId: "getYouTubeProjectClient",
    summary: "The OAuth client id and secret `mdame account connect youtube --project` signs in with (answered with `Cache-Control: no-store`)",
    description:
      "A Desktop app client's secret is not confidential to Google (installed apps carry it); it is sealed at rest and handed only to the service-role holder. `default` is the CLI's own GOOGLE_OAUTH_CLIENT_ID (404 here).",
    request: { params: projectParams },
    responses: {
      200: ok("The client", bodies.YouTubeProjectClient, "a registered project's client", examples.youtubeProjectClient),
      ...projectErrors,
      409: errors.conflict("The sealed secret does not open with the functions' key ring", {
        error:
          "the client secret of Google project 210987654321-second.apps.googleusercontent.com is sealed with key 9f8e7d6c, which is not in the key ring (1a2b3c4d): put that key back in CREDENTIALS_KEYS_PREVIOUS and run `mdame credentials rotate`, or register the project again",
      }),
    },
  }),

  rotateCredentials: credentials({
    method: "post",
    path: "/pipeline/credentials/rotate",
    operationId: "rotateCredentials",
    summary: "Re-seal the next batch of accounts' credentials with the current key (docs/guides/rotation.md)",
    request: { body: body(bodies.RotateCredentialsBody, false, { default: { summary: "a dry run of the first batch", value: examples.rotateBatch } }) },
    responses: {
      200: ok("Each account's outcome, the progress and `next`", bodies.CredentialsRotationBatch, "a dry run", examples.rotation),
      ...serviceBodyErrors,
    },
  }),
  credentialKeys: credentials({
    method: "get",
    path: "/pipeline/credentials/keys",
    operationId: "credentialKeys",
    summary: "Accounts by the key their credentials name; the previous keys no value names",
    responses: { 200: ok("The census", bodies.CredentialKeysCensus, "every account on the current key", examples.keys), ...serviceErrors },
  }),
};
