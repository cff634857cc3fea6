import 'reflect-metadata';
import { BookingView, LeadView, TicketView } from '@sa/contracts';
import { leadReceipt, ticketReceipt, visitorBooking } from './widget-views';

const TENANT = '7d1c2c4e-2b7a-4f6e-9d3a-1b2c3d4e5f60';
const BOT = '2f1b8a52-4c1e-4d7a-9a57-0c5f2d0b6e11';

const lead: LeadView = {
  id: 'a1e5c0de-0000-4000-8000-000000000001',
  tenant_id: TENANT,
  chatbot_id: BOT,
  session_id: 'sess',
  name: 'Stored Name',
  email: 'stored@example.com',
  phone: '+14155550199',
  external_user_id: 'user-1',
  company: 'Stored Co',
  intent_category: 'purchase',
  intent_summary: 'I want to buy 40 heaters',
  score: 80,
  score_band: 'hot',
  sentiment: 'positive',
  qualification: { budget: 'high' },
  status: 'new',
  captured_via: 'form',
  confidence: 0.9,
  notified_at: null,
  asked_contact_at: null,
  notes: null,
  country: 'US',
  region: null,
  channel: 'widget',
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T11:00:00.000Z',
};

describe('widget views', () => {
  it('a lead receipt carries only ids, a status and a timestamp: nothing stored about the visitor', () => {
    const view = leadReceipt(lead);
    expect(view).toEqual({ id: lead.id, session_id: 'sess', status: 'received', created_at: lead.created_at });
    const text = JSON.stringify(view);
    for (const stored of [TENANT, 'Stored', 'stored@', '555', 'heaters', 'user-1', 'high']) expect([stored, text.includes(stored)]).toEqual([stored, false]);
  });

  it('a ticket receipt likewise', () => {
    const ticket: TicketView = { id: 't1', session_id: 'sess', chatbot_id: BOT, email: 'a@b.co', name: 'Ann', subject: 'Help', message: 'Hi', created_at: '2026-03-01T10:00:00.000Z' };
    expect(ticketReceipt(ticket)).toEqual({ id: 't1', session_id: 'sess', status: 'received', created_at: ticket.created_at });
  });

  it("a booking keeps the visitor's own fields, id, status and creation time, never the tenant or the workspace's decisions", () => {
    const booking: BookingView = {
      id: 'b1',
      tenant_id: TENANT,
      chatbot_id: BOT,
      name: 'Lin',
      email: 'lin@example.com',
      phone: '+65 6123 4567',
      notes: null,
      requested_slot: '2027-03-01T02:00:00.000Z',
      country: null,
      time_zone: 'Asia/Singapore',
      custom_fields: null,
      status: 'pending',
      rejection_comment: null,
      confirmed_at: null,
      rejected_at: null,
      cancelled_at: null,
      created_at: '2026-03-01T10:00:00.000Z',
    };
    const view = visitorBooking(booking);
    expect(Object.keys(view).sort()).toEqual(['chatbot_id', 'country', 'created_at', 'custom_fields', 'email', 'id', 'name', 'notes', 'phone', 'requested_slot', 'status', 'time_zone']);
    expect(view).toMatchObject({ id: 'b1', name: 'Lin', status: 'pending', time_zone: 'Asia/Singapore' });
    expect(JSON.stringify(view)).not.toContain(TENANT);
  });
});
