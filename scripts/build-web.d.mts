// Types of scripts/build-web.mjs for the TypeScript that imports it (the tests' global setup, the bench).
export declare const WEB_DIST: string;
export declare const ALSO: readonly string[];
export declare function webSourceDigest(): string;
export declare function isWebUpToDate(): boolean;
export declare function buildWeb(): Promise<void>;
export declare function buildWebIfStale(): Promise<boolean>;
