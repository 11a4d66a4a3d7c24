/**
 * PostHog's built-in channel rules (posthog/hogql/database/schema/channel_type.py), written once as
 * data: channel-type.ts evaluates them in TypeScript and channel-type-sql.ts prints them as
 * one ClickHouse expression, so a session gets the same channel in recordings and web analytics.
 *
 * The semantics are ClickHouse's `multiIf`: a test on a missing (NULL) input is false, except
 * `missing`; no rule negates a test that could be NULL, so two values suffice in TypeScript.
 */

/**
 * The inputs the rules read: utm source, medium and campaign lower-cased with `''` and `'null'` as
 * missing, the entry referring domain as stored (`'$direct'` without a referrer), `gad_source` with
 * `''` and `'null'` as missing, and whether a gclid / fbclid was present.
 */
export type ChannelInput = 'source' | 'medium' | 'campaign' | 'referring_domain' | 'gad_source';
export type ChannelFlag = 'has_gclid' | 'has_fbclid';

export type ChannelTest =
  /** RE2 `match`: the pattern found anywhere in the input. */
  | { input: ChannelInput; matches: string }
  | { input: ChannelInput; oneOf: readonly string[] }
  | { input: ChannelInput; startsWith: string }
  | { input: ChannelInput; equals: string }
  | { input: ChannelInput; missing: true }
  | { input: ChannelInput; present: true }
  | { flag: ChannelFlag; is: boolean }
  | { any: readonly ChannelTest[] }
  | { all: readonly ChannelTest[] };

/** What a rule answers: a channel, or nothing (NULL) so the next one is tried. */
export type ChannelOutcome =
  | { channel: string }
  /**
   * The lookup table's paid or organic type of the input: `medium` in the medium table; `source`
   * in the source table, as it is and then as its first significant subdomain (PostHog's
   * `hogql_lookup…SourceType`), then a search engine's ccTLD (channel-definitions.ts).
   */
  | { lookup: 'source' | 'medium'; of: ChannelInput; paid: boolean }
  /** `if(test, then, NULL)` */
  | { when: ChannelTest; then: ChannelOutcome }
  /** `coalesce(…)`: the first that answers. */
  | { first: readonly ChannelOutcome[] }
  /** `multiIf(test, outcome, …, otherwise)` */
  | { cases: readonly (readonly [ChannelTest, ChannelOutcome])[]; otherwise: ChannelOutcome };

const SHOPPING_CAMPAIGN = '^(.*(([^a-df-z]|^)shop|shopping).*)$';
const VIDEO_CAMPAIGN = '^(.*video.*)$';

const campaign = (matches: string): ChannelTest => ({ input: 'campaign', matches });

/** The paid or organic half: the lookups in PostHog's order, then the fallbacks. */
function attributed(paid: boolean, fallbacks: readonly (readonly [ChannelTest, ChannelOutcome])[], otherwise: string): ChannelOutcome {
  return {
    first: [
      { lookup: 'source', of: 'source', paid },
      { when: campaign(SHOPPING_CAMPAIGN), then: { channel: paid ? 'Paid Shopping' : 'Organic Shopping' } },
      { lookup: 'medium', of: 'medium', paid },
      { lookup: 'source', of: 'referring_domain', paid },
      { cases: fallbacks, otherwise: { channel: otherwise } },
    ],
  };
}

export const DEFAULT_CHANNEL_RULES: ChannelOutcome = {
  cases: [
    [campaign('cross-network'), { channel: 'Cross Network' }],
    [
      {
        any: [
          { input: 'medium', oneOf: ['cpc', 'cpm', 'cpv', 'cpa', 'ppc', 'retargeting'] },
          { input: 'medium', startsWith: 'paid' },
          { flag: 'has_gclid', is: true },
          { input: 'gad_source', present: true },
        ],
      },
      attributed(
        true,
        [
          [{ input: 'gad_source', equals: '1' }, { channel: 'Paid Search' }],
          [campaign(VIDEO_CAMPAIGN), { channel: 'Paid Video' }],
          [{ flag: 'has_fbclid', is: true }, { channel: 'Paid Social' }],
        ],
        'Paid Unknown',
      ),
    ],
    [
      {
        all: [
          { input: 'referring_domain', equals: '$direct' },
          { input: 'medium', missing: true },
          {
            any: [
              { input: 'source', missing: true },
              { input: 'source', oneOf: ['(direct)', 'direct', '$direct'] },
            ],
          },
          { flag: 'has_fbclid', is: false },
        ],
      },
      { channel: 'Direct' },
    ],
  ],
  otherwise: attributed(
    false,
    [
      [campaign(VIDEO_CAMPAIGN), { channel: 'Organic Video' }],
      [{ input: 'medium', matches: 'push$' }, { channel: 'Push' }],
      [{ flag: 'has_fbclid', is: true }, { channel: 'Organic Social' }],
      [{ input: 'referring_domain', equals: '$direct' }, { channel: 'Direct' }],
      [{ input: 'referring_domain', present: true }, { channel: 'Referral' }],
    ],
    'Unknown',
  ),
};
