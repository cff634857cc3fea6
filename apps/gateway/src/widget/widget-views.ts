import { BookingView, LeadView, TicketView, WidgetBookingView, WidgetReceiptView } from '@sa/contracts';

/**
 * The visitor's views of what the widget routes stored. A widget caller is anonymous: it gets back
 * what it sent plus the ids, status and timestamps the server created, never stored data (a lead
 * may hold details a conversation or an earlier form left; no answer carries a tenant id).
 */
export function leadReceipt(lead: LeadView): WidgetReceiptView {
  return { id: lead.id, session_id: lead.session_id, status: 'received', created_at: lead.created_at };
}

export function ticketReceipt(ticket: TicketView): WidgetReceiptView {
  return { id: ticket.id, session_id: ticket.session_id, status: 'received', created_at: ticket.created_at };
}

/** A booking is a new record made from this request alone: its fields are what the visitor sent. */
export function visitorBooking(b: BookingView): WidgetBookingView {
  return {
    id: b.id,
    chatbot_id: b.chatbot_id,
    name: b.name,
    email: b.email,
    phone: b.phone,
    notes: b.notes,
    requested_slot: b.requested_slot,
    country: b.country,
    time_zone: b.time_zone,
    custom_fields: b.custom_fields,
    status: b.status,
    created_at: b.created_at,
  };
}
