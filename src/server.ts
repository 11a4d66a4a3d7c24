import { createRequire } from 'node:module';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { apiGuard } from './auth/guard.js';
import { personalApiKeyRoutes } from './auth/keys-routes.js';
import { meRoutes } from './auth/me-routes.js';
import { organizationMemberRoutes } from './auth/organization-routes.js';
import { createMailer } from './auth/reset-mail.js';
import { accountSessionRoutes } from './auth/session-routes.js';
import type { AppContext } from './context.js';
import { healthRoutes } from './health/routes.js';
import { clientAddressResolver, trustProxyOption } from './http/client-address.js';
import { installPublicCors } from './http/cors.js';
import { FastLane } from './sdk/router.js';
import { installErrorHandling } from './http/error-handler.js';
import { answerClientError } from './http/client-errors.js';
import { answerFrameworkError } from './http/framework-errors.js';
import { installBodyParsers } from './http/body-parsers.js';
import { methodNotAllowedRoutes } from './http/method-not-allowed.js';
import { installRouteRegistry } from './http/route-registry.js';
import { environmentRoutes } from './environments/routes.js';
import { startDemoDataGeneration } from './demo/demo-data.js';
import { eventRoutes } from './events/routes.js';
import { groupRoutes } from './groups/routes.js';
import { definitionRoutes } from './definitions/routes.js';
import { captureRoutes } from './sdk/capture/capture-handler.js';
import { CaptureThread } from './sdk/capture/capture-thread.js';
import { cohortRoutes } from './cohorts/routes.js';
import { flagsRoutes } from './sdk/flags/flags-routes.js';
import { flagsConfigRoutes } from './sdk/flags/config-routes.js';
import { surveysPublicRoutes } from './sdk/surveys/public-routes.js';
import { flagRoutes } from './flags/routes.js';
import { ingestionWarningRoutes } from './ingestion/warnings-routes.js';
import { personReadRoutes } from './persons/read-routes.js';
import { personRoutes } from './persons/routes.js';
import { recordingApiRoutes } from './recordings/api-routes.js';
import { recordingIngestRoutes } from './sdk/recordings/ingest-routes.js';
import { recordingPublicRoutes } from './sdk/recordings/public-routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { webVitalsRoutes } from './web-vitals/routes.js';
import { queryRoutes } from './insights/query-routes.js';
import { surveyResultsRoutes } from './surveys/results/routes.js';
import { dashboardRoutes } from './dashboards/routes.js';
import { earlyAccessRoutes } from './early-access/routes.js';
import { earlyAccessPublicRoutes } from './sdk/early-access/public-routes.js';
import { insightRoutes } from './insights/routes.js';
import { subscriptionRoutes } from './subscriptions/routes.js';
import { surveyRoutes } from './surveys/routes.js';
import { tenancyRoutes } from './environments/tenancy-routes.js';
import { webAppRoutes } from './web-app/routes.js';

const API_PREFIX = '/api';

/** Management API bodies (CSV uploads included) stay well under this. */
const API_BODY_LIMIT = 25 * 1024 * 1024;

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * fastify's own schema compilers, loaded when a route first declares a schema. No route does, and
 * fastify loads them (ajv above all) when it is created: a tenth of a second of every start. (A
 * factory given here counts as a custom compiler, which takes a header schema as written rather
 * than lower-casing its keys; none has one.)
 */
function compilersOnFirstUse(): CompilersFactory {
  // Resolved from fastify, whose dependencies they are.
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  type Factory = (...args: unknown[]) => unknown;
  const onFirstUse =
    (name: string): Factory =>
    (...args) =>
      (fromFastify(name) as () => Factory)()(...args);
  return {
    buildValidator: onFirstUse('@fastify/ajv-compiler'),
    buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler'),
  } as CompilersFactory;
}

/**
 * The authenticated management API: every route inside gets the guard (credentials, scope,
 * project access) before its handler runs.
 */
async function apiPlugin(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.addHook('preHandler', apiGuard(ctx.database));
  // Account e-mails (password resets, invites) go through the SMTP server subscriptions use.
  const mailer = createMailer(ctx);
  app.addHook('onClose', () => mailer.close());
  await app.register(accountSessionRoutes, { ctx, mailer });
  await app.register(meRoutes, { ctx });
  await app.register(organizationMemberRoutes, { ctx, mailer });
  await app.register(tenancyRoutes, { ctx });
  await app.register(personalApiKeyRoutes, { ctx });
  await app.register(environmentRoutes, { ctx, startDemoData: startDemoDataGeneration });
  await app.register(eventRoutes, { ctx });
  await app.register(personReadRoutes, { ctx });
  await app.register(personRoutes, { ctx });
  await app.register(groupRoutes, { ctx });
  await app.register(definitionRoutes, { ctx });
  await app.register(ingestionWarningRoutes, { ctx });
  await app.register(flagRoutes, { ctx });
  await app.register(cohortRoutes, { ctx });
  await app.register(insightRoutes, { ctx });
  await app.register(dashboardRoutes, { ctx });
  await app.register(earlyAccessRoutes, { ctx });
  await app.register(subscriptionRoutes, { ctx });
  await app.register(surveyRoutes, { ctx });
  await app.register(recordingApiRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(webVitalsRoutes, { ctx });
  await app.register(queryRoutes, { ctx });
  await app.register(surveyResultsRoutes, { ctx });
  await app.register(methodNotAllowedRoutes, { apiPrefix: API_PREFIX });
}

/**
 * How often node looks for requests past their timeout: a timeout is enforced within this much of
 * its due time (node's default is 30 s, whatever the timeout).
 */
function timeoutCheckInterval(requestTimeoutMs: number): number {
  return Math.min(30_000, Math.max(50, Math.ceil(requestTimeoutMs / 4)));
}

export async function buildServer(ctx: AppContext): Promise<FastifyInstance> {
  // The hot SDK endpoints are answered in front of fastify, on node's own server (sdk/router.ts).
  const captureThread = new CaptureThread(ctx.log);
  const lane = new FastLane({
    routes: [...captureRoutes(ctx, ctx.ingestionQueue, captureThread), ...flagsRoutes(ctx), ...surveysPublicRoutes(ctx)],
    clientAddress: clientAddressResolver(ctx.config.trustProxy),
    log: ctx.log,
  });
  const app = Fastify({
    serverFactory: lane.serverFactory,
    loggerInstance: ctx.log as FastifyBaseLogger,
    // Requests are logged by the onResponse hook below, one line each.
    logController: new LogController({ disableRequestLogging: true }),
    // A child logger per request costs the public endpoints a measurable share of their time;
    // they log nothing per request, so they share the root logger.
    childLoggerFactory: (logger, bindings, options, rawRequest) =>
      (rawRequest.url ?? '').startsWith(API_PREFIX + '/') ? logger.child(bindings, options) : logger,
    // Path parameters up to 2,048 characters reach their routes (fastify's default, 100, answers
    // 414): `/array/<token>/config` must tell a 101–200-character token, which PostHog's
    // check_token accepts, from a longer one (400 Invalid token), as PostHog does.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    bodyLimit: API_BODY_LIMIT,
    // A client that stalls while sending its request (headers or body) gets 408 and is closed.
    requestTimeout: ctx.config.requestTimeoutMs,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    http: { headersTimeout: ctx.config.requestTimeoutMs, connectionsCheckingInterval: timeoutCheckInterval(ctx.config.requestTimeoutMs) },
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    schemaController: { compilersFactory: compilersOnFirstUse() },
  });

  // Connections past the cap are closed as they arrive, before they cost a request's memory.
  app.server.maxConnections = ctx.config.maxConnections;
  app.addHook('onClose', () => captureThread.close());
  // New lane requests get 503 from here on, as fastify's own routes do (return503OnClosing).
  app.addHook('preClose', (done) => {
    lane.markClosing();
    done();
  });
  // A request fastify was already serving when closing began ends its connection with its answer,
  // as the lane's do: node closes only the connections idle at that moment, and a keep-alive one
  // would otherwise stay open until the client's next request or the keep-alive timeout (72 s),
  // holding the shutdown for as long (closeWithGrace then cut it only after its grace period).
  // A callback hook, not an async one: it runs on every reply, and an async hook costs a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (lane.isClosing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    done(null, payload);
  });
  installRouteRegistry(app);
  installErrorHandling(app);
  installBodyParsers(app);

  // One structured line per management request; ingestion paths log their own summaries.
  app.addHook('onResponse', async (request, reply) => {
    if (!request.url.startsWith(API_PREFIX)) return;
    request.log.info(
      {
        method: request.method,
        url: request.routeOptions.url ?? request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'api request',
    );
  });

  installPublicCors(app, API_PREFIX);
  await app.register(healthRoutes, { ctx });
  await app.register(flagsConfigRoutes, { ctx });
  await app.register(recordingIngestRoutes, { ctx });
  await app.register(recordingPublicRoutes, { ctx });
  await app.register(earlyAccessPublicRoutes, { ctx });
  await app.register(apiPlugin, { ctx, prefix: API_PREFIX });
  // The web app at / and its own paths only (web-app/sections.ts): never /api or an SDK path.
  await app.register(webAppRoutes);
  return app;
}
