import { IsDefined, IsEmail, IsIn, IsISO8601, IsOptional, IsString, IsUUID, ValidateIf } from 'class-validator';
import { LIST_LIMIT_MAX, ListLimit, SESSION_ID_MAX, WIDGET_SESSION_DESCRIPTION } from './chat';
import { Doc, Nullable } from './schema-docs';
import { CharLength, IsIsoDateTimeWithOffset, IsStringMap, NotBlank } from './validation';

export const BOOKING_STATUSES = ['pending', 'confirmed', 'rejected', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export const BOOKING_ACTIONS = ['confirm', 'reject', 'reschedule', 'cancel'] as const;
export type BookingAction = (typeof BOOKING_ACTIONS)[number];
export const BOOKING_COMMENT_MAX = 500;
export const BOOKINGS_LIMIT_DEFAULT = LIST_LIMIT_MAX;

/** Query of GET /v1/bookings (spec part 4) and request of bookings.booking.list. */
export class ListBookingsRequest {
  @Doc('Only bookings in this state.') @IsOptional() @IsIn(BOOKING_STATUSES) status?: BookingStatus;
  @Doc('Only bookings of this bot.') @IsOptional() @IsUUID() chatbotId?: string;
  @ListLimit(BOOKINGS_LIMIT_DEFAULT) limit?: number;
}

/** Path of GET/PATCH /v1/bookings/{id}. */
export class BookingIdRequest {
  @Doc('Booking id.') @IsUUID() id: string;
}

/** Body of PATCH /v1/bookings/{id} (spec part 4). */
@Doc({
  name: 'UpdateBookingRequest',
  description: 'Body of PATCH /bookings/{id}. Unknown members are rejected (400).',
  rules: { if: { properties: { action: { const: 'reschedule' } }, required: ['action'] }, then: { required: ['requestedSlot'] } },
})
export class UpdateBookingBody {
  @Doc('`confirm` and `reject` apply only to pending bookings; `reschedule` and `cancel` only to pending or confirmed ones.') @IsIn(BOOKING_ACTIONS) action: BookingAction;
  @Doc('ISO 8601 with a UTC offset. Required when action is `reschedule`.')
  @ValidateIf((o: UpdateBookingBody) => o.action === 'reschedule' || o.requestedSlot !== undefined)
  @IsDefined({ message: 'requestedSlot is required when action is reschedule' })
  @IsIsoDateTimeWithOffset()
  requestedSlot?: string;
  @Doc('Included in the visitor e-mail.') @IsOptional() @IsString() @CharLength(0, BOOKING_COMMENT_MAX) rejectionComment?: string;
  @Doc('Included in the visitor e-mail.') @IsOptional() @IsString() @CharLength(0, BOOKING_COMMENT_MAX) cancelComment?: string;
}

/** bookings.booking.update: the body plus the booking id (and the input of the MCP tool update_booking). */
export class UpdateBookingRequest extends UpdateBookingBody {
  @Doc('Booking id.') @IsUUID() id: string;
}

/** Limits of the visitor's contact details (widget forms). */
export const PERSON_NAME_MAX = 200;
export const EMAIL_MIN = 3;
export const EMAIL_MAX = 254;
export const PHONE_MIN = 3;
export const PHONE_MAX = 40;
export const NOTES_MAX = 2000;

/** Body of the widget's booking request (POST /widget/v1/bots/{botId}/bookings). */
@Doc({ name: 'WidgetBookingRequest', description: 'Body of POST /bots/{botId}/bookings: a booking request, created `pending`. Unknown members are rejected (400).' })
export class WidgetBookingBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @Doc('Not only white space.') @IsString() @CharLength(1, PERSON_NAME_MAX) @NotBlank() name: string;
  @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email: string;
  @Doc('Not only white space.') @IsString() @CharLength(PHONE_MIN, PHONE_MAX) @NotBlank() phone: string;
  @IsOptional() @IsString() @CharLength(0, NOTES_MAX) notes?: string;
  @Doc('ISO 8601 with a UTC offset, such as `2026-12-01T10:00:00+03:00`.') @IsOptional() @IsIsoDateTimeWithOffset() requestedSlot?: string;
  @Doc('Two-letter country code.') @IsOptional() @IsString() @CharLength(2, 2) country?: string;
  @Doc('IANA time zone, such as `Europe/Paris`.') @IsOptional() @IsString() @CharLength(1, 64) timeZone?: string;
  @Doc('Further answers of the booking form: a map of string to string.') @IsOptional() @IsStringMap() customFields?: Record<string, string>;
}

/** bookings.booking.create: a visitor's booking request for one bot. */
export class CreateBookingRequest extends WidgetBookingBody {
  @IsUUID() chatbotId: string;
}

/**
 * What POST …/bookings of the widget answers: the visitor's own request as stored, with its id and
 * status; nothing of the workspace's (Booking without tenant_id, rejection_comment and the
 * decision times).
 */
@Doc({ name: 'VisitorBooking', description: "The visitor's booking request as stored: the fields they sent, with its id, status (`pending`) and creation time." })
export class WidgetBookingView {
  @IsUUID() id: string;
  @Nullable() @IsUUID() chatbot_id: string | null;
  @Doc('Visitor name.') @IsString() name: string;
  @Doc('Visitor e-mail.') @IsString() email: string;
  @Doc('Visitor phone.') @IsString() phone: string;
  @Nullable() @IsString() notes: string | null;
  @Nullable() @IsISO8601() requested_slot: string | null;
  @Nullable() @IsString() country: string | null;
  @Nullable() @IsString() time_zone: string | null;
  @Doc('Map of string to string.') @Nullable() @IsStringMap() custom_fields: Record<string, string> | null;
  @IsIn(BOOKING_STATUSES) status: BookingStatus;
  @IsISO8601() created_at: string;
}

/** Booking, spec part 2: the visitor's part plus the workspace's. */
@Doc({ name: 'Booking', description: 'An appointment booking made by a visitor through the widget.' })
export class BookingView extends WidgetBookingView {
  @IsUUID() tenant_id: string;
  @Nullable() @IsString() rejection_comment: string | null;
  @Nullable() @IsISO8601() confirmed_at: string | null;
  @Nullable() @IsISO8601() rejected_at: string | null;
  @Nullable() @IsISO8601() cancelled_at: string | null;
}
