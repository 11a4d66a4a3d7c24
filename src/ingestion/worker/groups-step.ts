import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';
import { ensureGroupTypeIndex, getGroup, insertGroup, updateGroup } from '../../groups/store.js';
import { isPlainObject, type IngestionWarning, type Properties } from '../core/index.js';

type Db = Kysely<Schema>;

/**
 * `$groups: {type: key}` on any event attaches it to groups as `$group_<index>` properties (the
 * type gets an index on first use, at most five per project); `$groupidentify` creates or updates
 * the group itself with `$group_set`.
 */
export async function processGroups(
  db: Db,
  teamId: number,
  event: string,
  properties: Properties,
  timestamp: string,
): Promise<IngestionWarning[]> {
  const warnings: IngestionWarning[] = [];
  if (event === '$groupidentify') {
    const type = properties.$group_type;
    const key = properties.$group_key;
    if (typeof type === 'string' && type && (typeof key === 'string' || typeof key === 'number') && String(key)) {
      const index = await ensureGroupTypeIndex(db, teamId, type);
      if (index === undefined) {
        warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
      } else {
        const set = isPlainObject(properties.$group_set) ? properties.$group_set : {};
        const existing = await getGroup(db, teamId, index, String(key));
        if (!existing) {
          await insertGroup(db, { teamId, groupTypeIndex: index, groupKey: String(key), properties: { ...set }, createdAt: timestamp });
        } else {
          const merged = { ...existing.properties, ...set };
          if (JSON.stringify(merged) !== JSON.stringify(existing.properties)) {
            await updateGroup(db, { ...existing, properties: merged, version: existing.version + 1 });
          }
        }
        properties[`$group_${index}`] = String(key);
      }
    }
  }
  if (isPlainObject(properties.$groups)) {
    for (const [type, key] of Object.entries(properties.$groups)) {
      if (key === null || key === undefined || key === '') continue;
      const index = await ensureGroupTypeIndex(db, teamId, type);
      if (index === undefined) {
        warnings.push({ type: 'group_type_limit_reached', details: { groupType: type } });
        continue;
      }
      properties[`$group_${index}`] = typeof key === 'string' ? key : JSON.stringify(key);
    }
  }
  return warnings;
}
