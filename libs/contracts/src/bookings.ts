import { Transform } from 'class-transformer';
import { IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min, ValidateIf } from 'class-validator';
import { CharLength, IsIsoDateTimeWithOffset, IsStringMap, NotBlank, toInt } from './validation';

export const BOOKING_STATUSES = ['pending', 'confirmed', 'rejected', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export const BOOKING_ACTIONS = ['confirm', 'reject', 'reschedule', 'cancel'] as const;
export type BookingAction = (typeof BOOKING_ACTIONS)[number];
export const BOOKING_COMMENT_MAX = 500;

/** Query of GET /v1/bookings (spec part 4) and request of bookings.booking.list. */
export class ListBookingsRequest {
  @IsOptional() @IsIn(BOOKING_STATUSES) status?: BookingStatus;
  @IsOptional() @IsUUID() chatbotId?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) limit?: number;
}

/** Path of GET/PATCH /v1/bookings/{id}. */
export class BookingIdRequest {
  @IsUUID() id: string;
}

/** Body of PATCH /v1/bookings/{id} (spec part 4). */
export class UpdateBookingBody {
  @IsIn(BOOKING_ACTIONS) action: BookingAction;
  @ValidateIf((o: UpdateBookingBody) => o.action === 'reschedule' || o.requestedSlot !== undefined)
  @IsDefined({ message: 'requestedSlot is required when action is reschedule' })
  @IsIsoDateTimeWithOffset()
  requestedSlot?: string;
  @IsOptional() @IsString() @CharLength(0, BOOKING_COMMENT_MAX) rejectionComment?: string;
  @IsOptional() @IsString() @CharLength(0, BOOKING_COMMENT_MAX) cancelComment?: string;
}

/** bookings.booking.update: the body plus the booking id. */
export class UpdateBookingRequest extends UpdateBookingBody {
  @IsUUID() id: string;
}

/** Body of the widget's booking request (POST /widget/v1/bots/{botId}/bookings). */
export class WidgetBookingBody {
  @IsOptional() @IsString() @CharLength(1, 120) sessionId?: string;
  @IsString() @CharLength(1, 200) @NotBlank() name: string;
  @IsString() @IsEmail() @CharLength(3, 254) email: string;
  @IsString() @CharLength(3, 40) @NotBlank() phone: string;
  @IsOptional() @IsString() @CharLength(0, 2000) notes?: string;
  @IsOptional() @IsIsoDateTimeWithOffset() requestedSlot?: string;
  @IsOptional() @IsString() @CharLength(2, 2) country?: string;
  @IsOptional() @IsString() @CharLength(1, 64) timeZone?: string;
  @IsOptional() @IsStringMap() customFields?: Record<string, string>;
}

/** bookings.booking.create: a visitor's booking request for one bot. */
export class CreateBookingRequest extends WidgetBookingBody {
  @IsUUID() chatbotId: string;
}

/** Booking, spec part 2. */
export interface BookingView {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  name: string;
  email: string;
  phone: string;
  notes: string | null;
  requested_slot: string | null;
  country: string | null;
  time_zone: string | null;
  custom_fields: Record<string, string> | null;
  status: BookingStatus;
  rejection_comment: string | null;
  confirmed_at: string | null;
  rejected_at: string | null;
  cancelled_at: string | null;
  created_at: string;
}
