/**
 * The Content-Security-Policy of the pages Hoglet serves (the web app, a shared recording's page).
 * Scripts are the server's own (a shared page's one inline script by its nonce); nothing connects
 * elsewhere. Styles allow inline ones: the app's component library (Mantine) sets its CSS variables
 * in a style element and positions popovers with style attributes (docs/decisions/0010-web-app-stack.md).
 *
 * The replay player rebuilds a recorded page in rrweb's sandboxed iframe, which shares the policy:
 * the page's images, stylesheets (those rrweb could not inline), fonts and media come from the
 * recorded site, so those four passive kinds may come from any http(s) origin (and images from
 * blob:, which rrweb uses for canvas frames). Scripts, connections, frames and forms stay Hoglet's.
 */
const RECORDED_SITES = 'http: https:';

export interface PolicyOptions {
  /** A per-response nonce that lets the page's own inline script run. */
  scriptNonce?: string;
  /** Framing: `'none'` for the app; an embedded recording may be framed by any site. */
  frameAncestors: string;
}

export function contentSecurityPolicy({ scriptNonce, frameAncestors }: PolicyOptions): string {
  return [
    "default-src 'self'",
    scriptNonce === undefined ? "script-src 'self'" : `script-src 'self' 'nonce-${scriptNonce}'`,
    `style-src 'self' 'unsafe-inline' ${RECORDED_SITES}`,
    `img-src 'self' data: blob: ${RECORDED_SITES}`,
    `font-src 'self' data: ${RECORDED_SITES}`,
    `media-src 'self' blob: ${RECORDED_SITES}`,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}
