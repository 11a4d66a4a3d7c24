/**
 * A customer's site for the browser tests: its own origin (a plain HTTP server on 127.0.0.1) and
 * pages that load posthog-js from Hoglet the way PostHog's HTML snippet does: a stub `posthog`
 * that queues `init`, then `/static/array.js` from Hoglet picks the queue up.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SnippetPage {
  /** Hoglet's base URL (the snippet's api_host and where array.js comes from). */
  hoglet: string;
  /** The project API key. */
  token: string;
  /** posthog.init's config; api_host is set to `hoglet`. */
  config?: Record<string, unknown>;
  title: string;
  /** The body's markup (trusted: written by the test). */
  body: string;
  bodyStyle?: string;
}

/** An HTML page with PostHog's snippet. */
export function snippetPage({ hoglet, token, config = {}, title, body, bodyStyle }: SnippetPage): string {
  const init = { api_host: hoglet, ...config };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<script>
  (function (hoglet) {
    var stub = (window.posthog = []);
    stub._i = [];
    stub.__SV = 1;
    stub.init = function (token, config, name) { stub._i.push([token, config, name]); };
    var script = document.createElement('script');
    script.async = true;
    script.src = hoglet + '/static/array.js';
    document.head.appendChild(script);
  })(${JSON.stringify(hoglet)});
  posthog.init(${JSON.stringify(token)}, ${JSON.stringify(init)});
</script></head>
<body${bodyStyle ? ` style="${bodyStyle}"` : ''}>
${body}
</body></html>`;
}

export interface CustomerSite {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` on a free port of 127.0.0.1. */
export async function startCustomerSite(handler: http.RequestListener): Promise<CustomerSite> {
  const site = http.createServer(handler);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => site.close(() => resolve())),
  };
}

/** Answers with an HTML page. */
export function sendHtml(response: http.ServerResponse, html: string, status = 200): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(html);
}
