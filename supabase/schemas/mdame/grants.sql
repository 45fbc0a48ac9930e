-- Last of the declared schema: the function privileges, schema usage and roles follow
-- mdame.component_roles, as at the end of every migration.

select mdame.restrict_function_privileges();
