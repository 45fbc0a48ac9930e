/**
 * The database role each component connects as; mdame.component_roles declares the RPCs each may
 * execute (docs/reference/roles.md). mdame doctor checks the publisher's own accounts, so it
 * connects as the edge's role.
 */
export const COMPONENT_DB_ROLES = { edge: "mdame_engine", "gpu-worker": "mdame_gpu_worker", "render-runner": "mdame_render_runner" } as const;
export type DbComponent = keyof typeof COMPONENT_DB_ROLES;

/** The edge's role: the Edge Functions, the stage runner and the local edge host. */
export const ENGINE_DB_ROLE = COMPONENT_DB_ROLES.edge;
