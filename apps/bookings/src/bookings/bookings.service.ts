import { Inject, Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { BOOKINGS_LIMIT_DEFAULT, BookingView, CallerContext, CreateBookingRequest, ListBookingsRequest, UpdateBookingRequest } from '@sa/contracts';
import { isUniqueViolation } from '@sa/db';
import { DomainError, NotFound } from '@sa/errors';
import { Outbox } from '@sa/events';
import { RpcClient } from '@sa/messaging';
import { composeMail } from '../mail/mail-content';
import { EmailKind, transition } from './booking-rules';
import { BookingChange, BookingsRepository, CONFIRMED_SLOT_INDEX, toBookingView } from './bookings.repository';

/**
 * Bookings, spec parts 2–4. Access: a booking of another workspace is 404; a booking of a bot the
 * restricted token may not use is 403 (like another bot's conversation). State changes follow
 * spec part 3 (booking-rules.ts), run under a row lock, and write the visitor e-mail in the same
 * transaction. A confirmed booking holds its slot for its bot (unique index): taken → 409.
 */
@Injectable()
export class BookingsService {
  constructor(
    private readonly bookings: BookingsRepository,
    private readonly rpc: RpcClient,
    @Inject(Outbox) private readonly outbox: Outbox,
  ) {}

  async list(ctx: CallerContext, req: ListBookingsRequest): Promise<BookingView[]> {
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    const rows = await this.bookings.list({
      tenantId: ctx.tenantId,
      status: req.status,
      chatbotId: req.chatbotId,
      botIds: visibleBots(ctx),
      limit: req.limit ?? BOOKINGS_LIMIT_DEFAULT,
    });
    return rows.map(toBookingView);
  }

  async get(ctx: CallerContext, id: string): Promise<BookingView> {
    const row = await this.bookings.get(ctx.tenantId, id);
    if (!row) throw new NotFound('Booking');
    this.checkBookingAccess(ctx, row.chatbot_id);
    return toBookingView(row);
  }

  async update(ctx: CallerContext, req: UpdateBookingRequest): Promise<BookingView> {
    try {
      return await this.bookings.transaction(async (m) => {
        const row = await this.bookings.lock(m, ctx.tenantId, req.id);
        if (!row) throw new NotFound('Booking');
        this.checkBookingAccess(ctx, row.chatbot_id);
        const t = transition(row.status, req.action);
        if (!t.ok) throw new DomainError('conflict', t.reason, { reason: req.action === 'confirm' || req.action === 'reject' ? 'already_decided' : 'not_active' });
        const change: BookingChange = { status: t.next };
        let comment: string | null = null;
        switch (req.action) {
          case 'confirm':
            change.confirmedAt = true;
            break;
          case 'reject':
            comment = req.rejectionComment?.trim() || null;
            change.rejectionComment = comment;
            change.rejectedAt = true;
            break;
          case 'cancel':
            comment = req.cancelComment?.trim() || null;
            change.cancelComment = comment;
            change.cancelledAt = true;
            break;
          case 'reschedule': {
            const slot = new Date(req.requestedSlot!);
            change.requestedSlot = slot;
            // Keep the length of the slot when it had one.
            if (row.slot_end && row.requested_slot) change.slotEnd = new Date(slot.getTime() + (row.slot_end.getTime() - row.requested_slot.getTime()));
            break;
          }
        }
        const updated = await this.bookings.change(m, ctx.tenantId, row.id, change);
        const kind: EmailKind = req.action;
        const mail = composeMail(kind, updated, comment);
        await this.bookings.addEmail(m, { tenantId: ctx.tenantId, bookingId: row.id, kind, to: updated.email, subject: mail.subject, text: mail.text });
        return toBookingView(updated);
      });
    } catch (err) {
      if (isUniqueViolation(err, CONFIRMED_SLOT_INDEX)) {
        throw new DomainError('conflict', 'The slot is taken: another confirmed booking of this bot holds it', { reason: 'slot_taken' });
      }
      throw err;
    }
  }

  /** A visitor's booking request (the widget): pending, and booking.created through the outbox. */
  async create(ctx: CallerContext, req: CreateBookingRequest): Promise<BookingView> {
    await this.checkBot(ctx, req.chatbotId);
    const row = await this.bookings.transaction(async (m) => {
      const created = await this.bookings.insert(m, {
        tenantId: ctx.tenantId,
        chatbotId: req.chatbotId,
        sessionId: req.sessionId ?? null,
        name: req.name.trim(),
        email: req.email.trim(),
        phone: req.phone.trim(),
        notes: req.notes ?? null,
        requestedSlot: req.requestedSlot ?? null,
        country: req.country ? req.country.toUpperCase() : null,
        timeZone: req.timeZone ?? null,
        customFields: req.customFields ?? null,
      });
      await this.outbox.add(m, 'booking.created', ctx.tenantId, {
        booking_id: created.id,
        chatbot_id: created.chatbot_id,
        session_id: created.session_id,
        name: created.name,
        email: created.email,
        phone: created.phone,
        requested_slot: created.requested_slot ? created.requested_slot.toISOString() : null,
        time_zone: created.time_zone,
        country: created.country,
        notes: created.notes,
        custom_fields: created.custom_fields,
        status: created.status,
      });
      return created;
    });
    return toBookingView(row);
  }

  private checkBookingAccess(ctx: CallerContext, chatbotId: string | null): void {
    enforceBotAccess(ctx, BotAccess.OfResource, chatbotId, { what: 'bookings of that bot' });
  }

  /** A named bot: one the caller may use (403), of its workspace (404). */
  private async checkBot(ctx: CallerContext, chatbotId: string): Promise<void> {
    enforceBotAccess(ctx, BotAccess.MayName, chatbotId);
    const { found } = await this.rpc.send('bots.bot.check', { ids: [chatbotId] }, ctx);
    if (!found.includes(chatbotId)) throw new NotFound('Bot');
  }
}
