import http from 'node:http';

export interface RawAnswer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

export interface RawRequestOptions {
  method?: string;
  /** Sent as written, Host included (fetch sets its own Host and adds browser headers such as Sec-Fetch-Mode). */
  headers?: Record<string, string>;
  body?: string;
  /** A keep-alive agent to share connections; by default each request has a connection of its own. */
  agent?: http.Agent | false;
  /** No answer by then: the request fails with "no answer". */
  timeoutMs?: number;
}

/** One HTTP request exactly as given, for what fetch would change; rejects on a network failure. */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawAnswer> {
  const { method = 'GET', headers = {}, body, agent = false, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
    req.end(body);
  });
}
