import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';

export function surveysPath(server: TestServer, suffix = '', base = 'projects', id = server.bootstrap.team.id): string {
  return `/api/${base}/${id}/surveys/${suffix}`;
}

/** Creates a survey through the API and returns its body (fails the test on anything but 201). */
export async function createSurvey(server: TestServer, body: Record<string, unknown>): Promise<any> {
  const res = await server.request(surveysPath(server), { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export function patchSurvey(server: TestServer, id: string, body: unknown) {
  return server.request(surveysPath(server, `${id}/`), { method: 'PATCH', body });
}

export const openQuestion = (question = 'What should we build next?') => ({ type: 'open', question });
