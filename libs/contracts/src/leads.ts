import { IsOptional, IsUUID } from 'class-validator';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export const SCORE_BANDS = ['hot', 'warm', 'cold'] as const;
export type ScoreBand = (typeof SCORE_BANDS)[number];
export const CAPTURE_METHODS = ['conversational', 'form', 'inferred'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];
export const LEADS_LIST_MAX = 500;

/** Query of GET /v1/leads (spec part 4) and request of leads.lead.list. */
export class ListLeadsRequest {
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** Lead, spec part 2. */
export interface LeadView {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  session_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  external_user_id: string | null;
  company: string | null;
  intent_category: string | null;
  intent_summary: string | null;
  score: number;
  score_band: ScoreBand;
  sentiment: string | null;
  qualification: Record<string, string> | null;
  status: LeadStatus;
  captured_via: CaptureMethod;
  confidence: number | null;
  notified_at: string | null;
  asked_contact_at: string | null;
  notes: string | null;
  country: string | null;
  region: string | null;
  channel: string;
  created_at: string;
  updated_at: string;
}
