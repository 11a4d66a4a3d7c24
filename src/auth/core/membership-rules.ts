/**
 * PostHog's OrganizationMembership.validate_update: who may change or remove whom. Levels: member 1,
 * admin 8, owner 15. Answers the refusal's message (a 403), or null when allowed.
 */
export const LEVELS = { member: 1, admin: 8, owner: 15 } as const;
export const LEVEL_VALUES: readonly number[] = [LEVELS.member, LEVELS.admin, LEVELS.owner];

export interface MembershipRef {
  id: string;
  level: number;
}

/** The object permission (no new level) and, with `newLevel`, the level change's own rules. */
export function updateRefusal(requester: MembershipRef, target: MembershipRef, newLevel?: number): string | null {
  if (newLevel !== undefined) {
    if (target.id === requester.id) return "You can't change your own access level.";
    if (newLevel === LEVELS.owner) {
      if (requester.level !== LEVELS.owner) return "You can only make another member owner if you're this organization's owner.";
    } else if (newLevel > requester.level) {
      return 'You can only change access level of others to lower or equal to your current one.';
    }
  }
  if (target.id !== requester.id) {
    if (requester.level < LEVELS.admin) return 'You can only edit others if you are an admin.';
    if (target.level > requester.level) return 'You can only edit others with level lower or equal to you.';
  }
  return null;
}

/** OrganizationMemberObjectPermissions' message, when the object check fails (its own typo). */
export const CANNOT_EDIT_MEMBERS = 'Your cannot edit other organization members.';

/** PostHog's InviteSerializer: an invite's level may not exceed the inviter's. */
export function inviteRefusal(inviterLevel: number, level: number): string | null {
  return level > inviterLevel ? 'You cannot invite a user with a higher permission level than your own.' : null;
}

/** INVITE_DAYS_VALIDITY: an invite works for three days. */
export const INVITE_VALIDITY_MS = 3 * 24 * 3600 * 1000;

export const inviteExpired = (createdAt: string, now: Date) => Date.parse(createdAt) < now.getTime() - INVITE_VALIDITY_MS;
