// The status pages' paths, apart from their code (routes.ts): the daemon declares the routes at
// start and loads the pages' code only at the first request.
/** Every path statusRoute answers (GET), as the router declares them. */
export const STATUS_PATHS: readonly string[] = [
  '/',
  '/static/status.css',
  '/static/favicon.svg',
  '/static/status.js',
  '/api/v1/nodes',
  '/api/v1/watch',
  '/nodes/{name}',
  '/api/v1/nodes/{name}',
  '/api/v1/nodes/{name}/badge.svg',
  '/api/v1/nodes/{name}/uptime/{window}/badge.svg',
];
