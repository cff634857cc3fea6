import * as http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  method?: string;
  /** Arrays are sent as repeated header lines (fetch would join them into one). */
  headers?: Record<string, string | string[]>;
  body?: string;
  /** The client address to connect from (any 127.x.y.z works on Linux loopback). */
  localAddress?: string;
}

/** One HTTP/1.1 request with node:http, for what fetch cannot send: repeated headers, a chosen source address. */
export function rawHttp(url: string, req: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method: req.method ?? 'GET', headers: req.headers, localAddress: req.localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

export const jsonOf = (r: RawResponse): any => (r.text ? JSON.parse(r.text) : undefined);
