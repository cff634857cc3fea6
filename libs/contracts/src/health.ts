export class HealthPing {}

export interface HealthReply {
  service: string;
  status: 'ok';
  instance: string;
  uptime_s: number;
}
