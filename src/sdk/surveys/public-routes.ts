/**
 * `GET /api/surveys/?token=<project API key>`: the surveys posthog-js shows (PostHog's `surveys`
 * view). No personal key: the project API key names the environment. Served by the fast lane, so
 * it takes the public CORS policy and passes no `/api` guard.
 */
import type { AppContext } from '../../context.js';
import { errorEnvelope } from '../../posthog/errors.js';
import { publicSurveysResponse } from '../../surveys/public-cache.js';
import type { PublicRequest, PublicResponse, PublicRoute } from '../public-endpoint.js';

const MISSING_KEY = errorEnvelope(
  'authentication_error',
  'missing_api_key',
  'API key not provided. You can find your project API key in your PostHog project settings.',
);
const INVALID_KEY = errorEnvelope(
  'authentication_error',
  'invalid_api_key',
  'Project API key invalid. You can find your project API key in your PostHog project settings.',
);

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function answerSurveys(ctx: AppContext, request: PublicRequest): Promise<PublicResponse> {
  // PostHog's get_token: the query's `token`, else its `api_key`.
  const token = first(request.query.token) || first(request.query.api_key);
  if (!token) return { status: 401, body: MISSING_KEY };
  const team = await ctx.teams.byApiToken(token);
  if (!team) return { status: 401, body: INVALID_KEY };
  return { status: 200, body: await publicSurveysResponse(ctx, team) };
}

export function surveysPublicRoutes(ctx: AppContext): PublicRoute[] {
  return [{ path: '/api/surveys', maxBodyBytes: 64 * 1024, handle: (request) => answerSurveys(ctx, request) }];
}
