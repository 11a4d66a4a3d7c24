/** What a GeoIP lookup answers (geoip-service.ts), as the ingestion and flag cores read it. */
export type Names = { en?: string | null | undefined } & Record<string, unknown>;

/** City lookup result; every level optional, as MaxMind omits what it does not know. */
export interface GeoipLookupResult {
  city?: { names?: Names; confidence?: number } | null;
  country?: { names?: Names; isoCode?: string; iso_code?: string } | null;
  continent?: { names?: Names; code?: string } | null;
  postal?: { code?: string } | null;
  location?: {
    latitude?: number;
    longitude?: number;
    accuracyRadius?: number;
    accuracy_radius?: number;
    timeZone?: string;
    time_zone?: string;
  } | null;
  subdivisions?: Array<{ names?: Names; isoCode?: string; iso_code?: string }> | null;
}
