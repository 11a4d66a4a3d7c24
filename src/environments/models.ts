import type { TeamSettings } from './team-fields.js';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
}

export interface Project {
  id: number;
  organizationId: string;
  name: string;
  createdAt: string;
}

/** An environment (PostHog's Team). */
export interface Team {
  id: number;
  uuid: string;
  organizationId: string;
  projectId: number;
  name: string;
  apiToken: string;
  /** Project secret API key (`phs_…`) for server SDKs' local evaluation; null until first rotated. */
  secretApiToken: string | null;
  /** The secret key before the last rotation, accepted until deleted. */
  secretApiTokenBackup: string | null;
  settings: TeamSettings;
  ingestedEvent: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface User {
  id: number;
  uuid: string;
  distinctId: string;
  firstName: string;
  lastName: string;
  email: string;
  isActive: boolean;
  isStaff: boolean;
  isEmailVerified: boolean;
  currentOrganizationId: string | null;
  currentTeamId: number | null;
  roleAtOrganization: string | null;
  dateJoined: string;
}

export const MembershipLevel = { member: 1, admin: 8, owner: 15 } as const;
