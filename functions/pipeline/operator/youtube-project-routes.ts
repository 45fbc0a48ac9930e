import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { OAuthClientId } from "../../../shared/contracts/account.ts";
import { DEFAULT_YOUTUBE_PROJECT, isEnvironmentClient, projectName, YouTubeProject } from "../../../shared/contracts/youtube-project.ts";
import { ClientSecretUnreadableError, openClientSecret, sealClientSecret } from "../../../shared/crypto/client-secrets.ts";
import { NotFoundError, WrongStateError } from "../../../shared/db/errors.ts";
import { getYouTubeProjects, registerYouTubeProject, removeYouTubeProject, type YouTubeProjectPlan } from "../../../shared/db/rpc/youtube-projects.ts";
import { answer } from "../../../shared/http/answer.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

function toProject(row: YouTubeProjectPlan, env: { GOOGLE_OAUTH_CLIENT_ID: string }): YouTubeProject {
  const environment = row.client_secret_enc === null && isEnvironmentClient(row.oauth_client_id, env);
  return answer(YouTubeProject, {
    name: projectName(row, env),
    oauth_client_id: row.oauth_client_id,
    client: row.client_secret_enc !== null ? "registered" : environment ? "environment" : "unregistered",
    upload_calls_per_day: row.upload_calls_per_day,
    api_units_per_day: row.api_units_per_day,
    analytics_queries_per_day: row.analytics_queries_per_day,
    stats_units_per_day: row.stats_units_per_day,
    accounts: row.accounts,
    active_accounts: row.active_accounts,
    planned_uploads_per_day: row.planned_uploads_per_day,
    uploads_today: row.uploads_today,
    created_at: row.created_at.toISOString(),
  }, "mdame.youtube_projects");
}

async function namedProject(deps: OperatorDeps, name: string): Promise<YouTubeProjectPlan> {
  const projects = await getYouTubeProjects(deps.sql);
  const project = projects.find((p) => p.name === name);
  if (project) return project;
  const names = [DEFAULT_YOUTUBE_PROJECT, ...projects.flatMap((p) => (p.name ? [p.name] : []))].join(", ");
  throw new NotFoundError(
    "MDN01",
    `no YouTube project ${name} (registered: ${names}); add one with \`mdame youtube-project add --name ${name} --client-id <id>\``,
  );
}

/**
 * Google project routes of the operator API (`mdame youtube-project ...`, docs/reference/distribution.md),
 * declared in shared/api/routes/accounts.ts behind the service-role bearer. Only the functions hold
 * the key ring, so a secret is sealed here.
 *
 * - `GET    /youtube-projects`               every project, its buckets, accounts and planned uploads
 * - `POST   /youtube-projects`               registers one (mdame.register_youtube_project), its secret
 *   sealed for its client id; a name or client registered already is 409
 * - `DELETE /youtube-projects/:name`         unregisters it (mdame.remove_youtube_project); 409 while
 *   accounts holding credentials use it
 * - `GET    /youtube-projects/:name/client`  the client id and secret `mdame account connect youtube
 *   --project` signs in with. A Desktop app client's secret is not confidential to Google (it ships
 *   inside installed apps); it is sealed at rest and handed only to the service-role holder
 */
export function youtubeProjectHandlers(
  deps: OperatorDeps,
): Handlers<"listYouTubeProjects" | "registerYouTubeProject" | "removeYouTubeProject" | "getYouTubeProjectClient"> {
  return {
    listYouTubeProjects: async (c) => {
      const rows = await getYouTubeProjects(deps.sql);
      return reply(c, routes.listYouTubeProjects, 200, { projects: rows.map((row) => toProject(row, deps.env)) });
    },

    registerYouTubeProject: async (c) => {
      const body = c.req.valid("json");
      // Bound to the client id: a sealed secret copied onto another project does not open there.
      const sealedSecret = await sealClientSecret(deps.credentialKeys, body.client_secret, body.oauth_client_id);
      await registerYouTubeProject(deps.sql, {
        name: body.name,
        oauthClientId: body.oauth_client_id,
        sealedSecret,
        uploadCallsPerDay: body.upload_calls_per_day,
        apiUnitsPerDay: body.api_units_per_day,
        analyticsQueriesPerDay: body.analytics_queries_per_day,
        statsUnitsPerDay: body.stats_units_per_day,
      });
      const project = toProject(await namedProject(deps, body.name), deps.env);
      deps.logger.info(
        { project: body.name, oauth_client_id: body.oauth_client_id, upload_calls_per_day: project.upload_calls_per_day, status: "succeeded" },
        "YouTube project registered by the operator",
      );
      return reply(c, routes.registerYouTubeProject, 201, project);
    },

    removeYouTubeProject: async (c) => {
      const { name } = c.req.valid("param");
      const removed = await removeYouTubeProject(deps.sql, name);
      deps.logger.info({ project: name, oauth_client_id: removed.oauth_client_id, status: "succeeded" }, "YouTube project removed by the operator");
      return reply(c, routes.removeYouTubeProject, 200, { name, oauth_client_id: removed.oauth_client_id });
    },

    getYouTubeProjectClient: async (c) => {
      const { name } = c.req.valid("param");
      if (name === DEFAULT_YOUTUBE_PROJECT) {
        throw new NotFoundError(
          "MDN01",
          "the project default is the environment's client: the CLI signs in with its own GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET",
        );
      }
      const project = await namedProject(deps, name);
      // A secret the ring cannot open is a state the operator fixes (the key back, or the project registered again): 409.
      const clientSecret = await openClientSecret(deps.credentialKeys, project.client_secret_enc!, project.oauth_client_id).catch((error) => {
        throw error instanceof ClientSecretUnreadableError ? new WrongStateError("MDS01", error.message) : error;
      });
      deps.logger.info({ project: name, oauth_client_id: project.oauth_client_id, status: "succeeded" }, "YouTube project client handed to a connect");
      c.header("cache-control", "no-store");
      return reply(c, routes.getYouTubeProjectClient, 200, {
        name,
        oauth_client_id: OAuthClientId.parse(project.oauth_client_id),
        client_secret: clientSecret,
      });
    },
  };
}
