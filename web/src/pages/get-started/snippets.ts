/** The set-up snippets of the Get started page, for an environment's project API key and this server. */

export function browserSnippet(token: string, host: string): string {
  return `<script>
  !function(t,e){var o,n,p,r;e.__SV||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="capture identify alias people.set people.set_once set_config register register_once unregister opt_out_capturing has_opted_out_capturing opt_in_capturing reset isFeatureEnabled onFeatureFlags getFeatureFlag getFeatureFlagPayload reloadFeatureFlags group".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);
  posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(host)}, person_profiles: 'identified_only' });
</script>`;
}

export function npmSnippet(token: string, host: string): string {
  return `// npm install posthog-js
import posthog from 'posthog-js';

posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(host)} });
posthog.capture('my first event', { plan: 'pro' });`;
}

export function nodeSnippet(token: string, host: string): string {
  return `// npm install posthog-node
import { PostHog } from 'posthog-node';

const posthog = new PostHog(${JSON.stringify(token)}, { host: ${JSON.stringify(host)} });
posthog.capture({ distinctId: 'user-42', event: 'my first event', properties: { plan: 'pro' } });
await posthog.shutdown();`;
}

export function curlSnippet(token: string, host: string): string {
  return `curl -X POST ${host}/i/v0/e/ \\
  -H 'Content-Type: application/json' \\
  -d '${JSON.stringify({ api_key: token, event: 'my first event', distinct_id: 'user-42', properties: { plan: 'pro' } })}'`;
}
