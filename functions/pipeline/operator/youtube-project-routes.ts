import type { Env, Hono, Schema } from "hono";
import { OAuthClientId } from "../../../shared/contracts/account.ts";
import {
  DEFAULT_YOUTUBE_PROJECT,
  isEnvironmentClient,
  projectName,
  RegisterYouTubeProjectBody,
  RemovedYouTubeProject,
  YouTubeProject,
  YouTubeProjectClient,
  YouTubeProjectList,
  YouTubeProjectName,
} from "../../../shared/contracts/youtube-project.ts";
import { ClientSecretUnreadableError, openClientSecret, sealClientSecret } from "../../../shared/crypto/client-secrets.ts";
import { NotFoundError, WrongStateError } from "../../../shared/db/errors.ts";
import { getYouTubeProjects, registerYouTubeProject, removeYouTubeProject, type YouTubeProjectPlan } from "../../../shared/db/rpc/youtube-projects.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "./deps.ts";
import { jsonBody, routeParam } from "./request.ts";

function toProject(row: YouTubeProjectPlan, env: { GOOGLE_OAUTH_CLIENT_ID: string }): YouTubeProject {
  const environment = row.client_secret_enc === null && isEnvironmentClient(row.oauth_client_id, env);
  return answer(YouTubeProject, {
    name: projectName(row, env),
    oauth_client_id: row.oauth_client_id,
    client: row.client_secret_enc !== null ? "registered" : environment ? "environment" : "unregistered",
    upload_calls_per_day: row.upload_calls_per_day,
    api_units_per_day: row.api_units_per_day,
    analytics_queries_per_day: row.analytics_queries_per_day,
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
 * behind the service-role bearer. Only the functions hold the key ring, so a secret is sealed here.
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
export function registerYouTubeProjectRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/youtube-projects", auth, async (c) => {
    const rows = await getYouTubeProjects(deps.sql);
    return c.json(answer(YouTubeProjectList, { projects: rows.map((row) => toProject(row, deps.env)) }, "GET /youtube-projects"));
  });

  app.post("/youtube-projects", auth, async (c) => {
    const body = RegisterYouTubeProjectBody.parse(await jsonBody(c.req.raw));
    // Bound to the client id: a sealed secret copied onto another project does not open there.
    const sealedSecret = await sealClientSecret(deps.credentialKeys, body.client_secret, body.oauth_client_id);
    await registerYouTubeProject(deps.sql, {
      name: body.name,
      oauthClientId: body.oauth_client_id,
      sealedSecret,
      uploadCallsPerDay: body.upload_calls_per_day,
      apiUnitsPerDay: body.api_units_per_day,
      analyticsQueriesPerDay: body.analytics_queries_per_day,
    });
    const project = toProject(await namedProject(deps, body.name), deps.env);
    deps.logger.info(
      { project: body.name, oauth_client_id: body.oauth_client_id, upload_calls_per_day: project.upload_calls_per_day, status: "succeeded" },
      "YouTube project registered by the operator",
    );
    return c.json(project, 201);
  });

  app.delete("/youtube-projects/:name", auth, async (c) => {
    const name = routeParam("name", c.req.param("name"), YouTubeProjectName);
    const removed = await removeYouTubeProject(deps.sql, name);
    deps.logger.info({ project: name, oauth_client_id: removed.oauth_client_id, status: "succeeded" }, "YouTube project removed by the operator");
    return c.json(answer(RemovedYouTubeProject, { name, oauth_client_id: removed.oauth_client_id }, "DELETE /youtube-projects/:name"));
  });

  app.get("/youtube-projects/:name/client", auth, async (c) => {
    const name = routeParam("name", c.req.param("name"), YouTubeProjectName);
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
    return c.json(
      answer(
        YouTubeProjectClient,
        { name, oauth_client_id: OAuthClientId.parse(project.oauth_client_id), client_secret: clientSecret },
        "GET /youtube-projects/:name/client",
      ),
    );
  });
}
